#!/usr/bin/env python3
"""Saves the torchvision CNNs of the README's convolution benchmark.

Tooling only (Debian's python3-torch and python3-torchvision; no network:
the weights are torchvision's random initialization, with batch-norm
statistics drawn at random so folding them into the convolutions matters).
Each model is put in eval mode, scripted with torch.jit.script and written
with torch.jit.save (not frozen: every tool freezes it itself), its input,
a 1x3x224x224 image batch, with torch.save of a tuple:

  tools/bench_models/save_cnns.py OUT_DIR [--batch N] [--size S]

writes OUT_DIR/<name>.pt and OUT_DIR/<name>_inputs.pt for resnet18,
squeezenet1_1, shufflenet_v2_x0_5, mobilenet_v3_small, resnet50,
densenet121 (batch norms freezing cannot fold) and vgg11_bn.
tools/bench_models/compare.sh --cnn runs `sr bench --against=pytorch-sr` on
them.
"""
import argparse
import os

import torch
import torchvision

MODELS = {
    "resnet18": torchvision.models.resnet18,
    "squeezenet1_1": torchvision.models.squeezenet1_1,
    "shufflenet_v2_x0_5": torchvision.models.shufflenet_v2_x0_5,
    "mobilenet_v3_small": torchvision.models.mobilenet_v3_small,
    "resnet50": torchvision.models.resnet50,
    "densenet121": torchvision.models.densenet121,
    "vgg11_bn": torchvision.models.vgg11_bn,
}


def randomize_batch_norms(model):
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.5, 0.5)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--size", type=int, default=224)
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    torch.manual_seed(0)
    for name, constructor in MODELS.items():
        model = constructor().eval()
        randomize_batch_norms(model)
        scripted = torch.jit.script(model)
        inputs = (torch.randn(args.batch, 3, args.size, args.size),)
        with torch.no_grad():
            scripted(*inputs)  # the model runs on its input
        torch.jit.save(scripted, os.path.join(args.out_dir, f"{name}.pt"))
        torch.save(inputs, os.path.join(args.out_dir, f"{name}_inputs.pt"))
        print(f"{args.out_dir}/{name}.pt")


if __name__ == "__main__":
    main()
