#!/usr/bin/env python3
"""Saves the models of the shape sweep (shape_sweep.sh): a model each of the
kinds whose input shapes change in serving, with the input shapes the sweep
meets them at.

Tooling only (Debian's python3-torch and -torchvision; random weights, seed 0):

  tools/bench_models/save_shape_sweep_models.py OUT_DIR [--only NAME,...] [--list]

writes OUT_DIR/<name>.pt (scripted, eval mode, not frozen) and
OUT_DIR/<name>.shapes, one `sr sweep --shapes` input spec per line, in the
order the sweep calls them.
"""
import os
import sys

import torch
import torchvision
from torch import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_cli  # noqa: E402
from save_broad_corpus import BertEncoder, RnnTagger, randomize_norms  # noqa: E402


class MaskedEncoder(nn.Module):
    """A BERT-style encoder whose padding mask comes from sequence lengths."""

    def __init__(self):
        super().__init__()
        self.encoder = BertEncoder(layers=4)

    def forward(self, tokens: Tensor, lengths: Tensor) -> Tensor:
        positions = torch.arange(tokens.size(1)).unsqueeze(0)
        return self.encoder(tokens, positions >= lengths.unsqueeze(1))


class ShapeDependent(nn.Module):
    """Branches on the sequence length and loops over the batch."""

    def __init__(self):
        super().__init__()
        self.short = nn.Linear(32, 32)
        self.long = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 32))

    def forward(self, x: Tensor) -> Tensor:
        if x.size(1) > 40:
            y = self.long(x)
        else:
            y = self.short(x)
        total = torch.zeros_like(y[0])
        for i in range(y.size(0)):
            total = total + torch.tanh(y[i])
        return total.sum(0)


def image_shapes():
    return [f"f32[{b},3,{px},{px}]" for b, px in
            [(1, 128), (1, 160), (2, 128), (1, 224), (2, 160), (2, 224)]]


def token_shapes(vocabulary, lengths):
    return [f"i64[{b},{t}]{{0..{vocabulary - 1}}}" + (f";i64[{b}]{{1..{t}}}" if lengths else "")
            for b, t in [(1, 16), (2, 32), (4, 16), (1, 64), (4, 64), (8, 32)]]


MODELS = {
    "resnet18": (lambda: randomize_norms(torchvision.models.resnet18()), image_shapes()),
    "masked_encoder": (MaskedEncoder, token_shapes(1000, True)),
    "lstm_tagger": (lambda: RnnTagger("lstm", False),
                    [f"i64[{b},{t}]{{0..499}}" for b, t in
                     [(1, 8), (2, 40), (4, 100), (8, 8), (1, 100), (8, 64)]]),
    "shape_dependent": (ShapeDependent,
                        [f"f32[{b},{t},32]" for b, t in
                         [(1, 16), (2, 64), (4, 16), (8, 48), (1, 64), (8, 8)]]),
}


def save(name, out_dir):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    make, shapes = MODELS[name]
    model = make().eval()
    with torch.no_grad():
        scripted = torch.jit.script(model)
    torch.jit.save(scripted, os.path.join(out_dir, name + ".pt"))
    with open(os.path.join(out_dir, name + ".shapes"), "w") as f:
        f.write("\n".join(shapes) + "\n")


if __name__ == "__main__":
    corpus_cli.main(__doc__, os.path.abspath(__file__), list(MODELS), save)
