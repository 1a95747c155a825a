"""Saves real nn and torchvision models, scripted (and one frozen) with
torch.jit.save, with their inputs saved by torch.save, into the directory
given: what verify_saved_models_test.sh runs `sr verify` on.

    python3 save_nn_models.py OUT_DIR
"""
import os
import sys

import torch
import torchvision
from torch import Tensor, nn

torch.manual_seed(0)


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)

    def forward(self, x: Tensor) -> Tensor:
        out, _ = self.lstm(x)
        return out


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, batch_first=True)
    encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
    models = {
        "transformer_encoder": (torch.jit.script(encoder), (torch.randn(2, 5, 16),)),
        "lstm": (torch.jit.script(Lstm().eval()), (torch.randn(2, 4, 8),)),
        "mobilenet_v3_small_frozen": (
            torch.jit.freeze(torch.jit.script(torchvision.models.mobilenet_v3_small().eval())),
            (torch.randn(1, 3, 48, 48),)),
        # Batch norms after concatenations, on images large enough for
        # two intra-op threads to split them.
        "densenet_frozen": (
            torch.jit.freeze(torch.jit.script(torchvision.models.DenseNet(
                growth_rate=8, block_config=(2, 2), num_init_features=16).eval())),
            (torch.randn(1, 3, 256, 256),)),
    }
    for name, (model, inputs) in models.items():
        with torch.no_grad():
            model(*inputs)
        torch.jit.save(model, os.path.join(out, name + ".pt"))
        torch.save(inputs, os.path.join(out, name + "_inputs.pt"))


if __name__ == "__main__":
    main()
