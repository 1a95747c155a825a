#!/usr/bin/env python3
"""Exports the broad benchmark corpus to ONNX, for timing ONNX Runtime
against this runtime on the same models (compare.sh --against=onnxruntime).

A benchmark aid only (Debian's python3-torch; no network, no onnx package).
Each model is built exactly as save_broad_corpus.py builds it (the same
factory, seed 0, one thread: the same weights and inputs as its .pt), put in
eval mode and exported from the eager module with torch.onnx.export, opset
17, static shapes. Grad stays enabled during the export: layers with a fused
inference fast path (nn.TransformerEncoderLayer, nn.MultiheadAttention) take
it only without grad, and that path has no ONNX form; with grad they export
their plain ops, which compute the same function.

  tools/bench_models/export_onnx.py OUT_DIR [--only NAME,...] [--list]

writes, for each model it can export, OUT_DIR/<name>.onnx and
OUT_DIR/<name>.onnx.json: the graph's inputs in order (each a file of raw
little-endian values, its dtype and shape) and the eager model's outputs
(likewise), which tools/bench_models/ort_bench.js checks ONNX Runtime's
against before it times. A model that does not export (a traced-and-frozen
module, a dict of inputs ONNX has no type for, an operator without an ONNX
form) is skipped with one line on stderr saying why; its name is not printed.
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_cli  # noqa: E402
import save_broad_corpus  # noqa: E402

ONNX_DTYPES = {torch.float32: "float32", torch.int64: "int64", torch.int32: "int32",
               torch.bool: "bool", torch.float64: "float64", torch.uint8: "uint8"}


def flatten(value):
    """The tensors of a nested value, in the order torch.onnx.export flattens
    a model's inputs and outputs."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in flatten(item)]
    if isinstance(value, dict):
        return [t for key in value for t in flatten(value[key])]
    return []


def write_tensors(tensors, out_dir, stem):
    described = []
    for i, tensor in enumerate(tensors):
        tensor = tensor.detach().contiguous()
        if tensor.dtype not in ONNX_DTYPES:
            raise TypeError(f"a tensor of {tensor.dtype}, which the timer does not read")
        file = f"{stem}.{i}.bin"
        with open(os.path.join(out_dir, file), "wb") as f:
            f.write(tensor.numpy().tobytes())
        described.append({"file": file, "dtype": ONNX_DTYPES[tensor.dtype],
                          "shape": list(tensor.shape)})
    return described


def save(name, out_dir):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model, inputs = save_broad_corpus.MODELS[name]()
    if isinstance(model, torch.jit.ScriptModule):
        print(f"{name}: not exported: a traced and frozen module (export the eager one)",
              file=sys.stderr)
        return False
    model.eval()
    with torch.no_grad():
        expected = model(*inputs)
    path = os.path.join(out_dir, name + ".onnx")
    try:
        # (a trailing {}: a dict among the inputs is an input, not keyword arguments)
        torch.onnx.export(model, tuple(inputs) + ({},), path, opset_version=17,
                          do_constant_folding=True)
        manifest = {
            "inputs": write_tensors(flatten(inputs), out_dir, name + ".in"),
            "outputs": write_tensors(flatten(expected), out_dir, name + ".out"),
        }
    except Exception as e:  # pylint: disable=broad-except
        first_line = (str(e).strip().splitlines() or [type(e).__name__])[0]
        print(f"{name}: not exported: {first_line[:200]}", file=sys.stderr)
        if os.path.exists(path):
            os.remove(path)
        return False
    with open(path + ".json", "w") as f:
        json.dump(manifest, f, indent=1)
    return True


def main():
    corpus_cli.main(__doc__, __file__, save_broad_corpus.MODELS, save)


if __name__ == "__main__":
    main()
