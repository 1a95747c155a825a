"""Saves the models examples/consumer gates, as a team would from its own
training code (needs python3-torch):

    python3 save_models.py   # writes the .pt files beside this script

tiny_ranker: an ads-style ranker (pooled embeddings of ids and dense features
through an MLP), scripted and saved with torch.jit.save; its inputs saved
with torch.save. writes_input: a model that adds to its input in place (the
runtime does so too, as the JIT; verify passes and warns). random_output: a
model that draws random numbers (as a dropout left on does); verify gives
both runs the same draws and passes. wants_images: a model that checks its
input is a batch of images, saved to be gated with inputs it rejects (its
verify test is expected to fail).
"""
import os

import torch
from torch import Tensor, nn

torch.manual_seed(0)
HERE = os.path.dirname(os.path.abspath(__file__))


class TinyRanker(nn.Module):
    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(100, 8, mode="sum")
        self.mlp = nn.Sequential(nn.Linear(8 + 16, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, dense: Tensor, ids: Tensor, offsets: Tensor) -> Tensor:
        pooled = self.bag(ids, offsets)
        return torch.sigmoid(self.mlp(torch.cat([pooled, dense], dim=1)))


class WritesInput(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        x.add_(1.0)
        return x * 2.0


class RandomOutput(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        return x + torch.rand_like(x)


class WantsImages(nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        if x.dim() != 4:
            raise ValueError("expected a batch of images (N, C, H, W)")
        return x.mean(dim=(2, 3))


def main():
    ranker = torch.jit.script(TinyRanker().eval())
    batch = 4
    inputs = (torch.rand(batch, 16), torch.randint(0, 100, (batch * 3,)),
              torch.arange(0, batch * 3, 3))
    ranker(*inputs)
    torch.jit.save(ranker, os.path.join(HERE, "tiny_ranker.pt"))
    torch.save(inputs, os.path.join(HERE, "tiny_ranker_inputs.pt"))
    torch.jit.save(torch.jit.script(WritesInput().eval()), os.path.join(HERE, "writes_input.pt"))
    torch.save((torch.rand(3, 4),), os.path.join(HERE, "writes_input_inputs.pt"))
    torch.jit.save(torch.jit.script(RandomOutput().eval()), os.path.join(HERE, "random_output.pt"))
    torch.jit.save(torch.jit.script(WantsImages().eval()), os.path.join(HERE, "wants_images.pt"))


if __name__ == "__main__":
    main()
