"""The command line the corpus scripts share (save_broad_corpus.py,
save_quantized_corpus.py): OUT_DIR [--only NAME,...] [--list], one process
per model.

TorchScript mangles the names of module classes scripted a second time in a
process, and then compiles isinstance checks against them
(nn.TransformerEncoder's test of its first layer) to False, dropping fast
paths a model saved on its own takes; a quantized model also sets its own
quantized engine. So with several models, the script runs itself once per
model.
"""
import argparse
import os
import subprocess
import sys

import torch


def main(doc, script, names, save):
    """Parses the command line of `script` (its docstring `doc`, its models
    `names`) and calls save(name, out_dir) for the one model a process saves;
    the name is printed unless save returns False (it skipped the model)."""
    parser = argparse.ArgumentParser(description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", nargs="?")
    parser.add_argument("--only", help="comma-separated model names")
    parser.add_argument("--list", action="store_true", help="print the model names")
    args = parser.parse_args()
    if args.list:
        print("\n".join(names))
        return
    if not args.out_dir:
        parser.error("OUT_DIR is required")
    chosen = args.only.split(",") if args.only else list(names)
    unknown = [n for n in chosen if n not in names]
    if unknown:
        parser.error(f"unknown model(s): {', '.join(unknown)}")
    os.makedirs(args.out_dir, exist_ok=True)
    if len(chosen) > 1:
        for name in chosen:
            subprocess.run([sys.executable, script, args.out_dir, "--only", name], check=True)
        return
    if save(chosen[0], args.out_dir) is not False:  # False: skipped, saying why
        print(chosen[0])


def save_scripted(make, name, out_dir):
    """Builds the model (make() -> (model, inputs), seed 0, one thread), scripts
    it in eval mode, checks it runs on its inputs, and writes OUT_DIR/<name>.pt
    and OUT_DIR/<name>_inputs.pt."""
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model, inputs = make()
    model.eval()
    with torch.no_grad():
        scripted = torch.jit.script(model)
        scripted(*inputs)  # the scripted model runs on its inputs
    torch.jit.save(scripted, os.path.join(out_dir, name + ".pt"))
    torch.save(inputs, os.path.join(out_dir, name + "_inputs.pt"))
