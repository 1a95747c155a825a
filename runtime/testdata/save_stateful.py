"""Saves the models of //runtime:compatibility_test that keep state a frozen
graph cannot fold away (run from the repository root with Debian's
python3-torch):

    /usr/bin/python3 runtime/testdata/save_stateful.py

stateful_attributes.pt: forward assigns attributes of its own and of a
submodule (freezing keeps them as attributes), and counts its calls.
stateful_object.pt: forward creates a TorchScript class object, sets and
reads its attributes and calls its methods.
"""
import torch
from torch import Tensor


class Scaler(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = 12
        self.b = 2

    def forward(self, x: Tensor) -> Tensor:
        self.b = 30
        return self.a + self.b + x


class Attributes(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = Scaler()
        self.a = 3
        self.b = 4
        self.calls = 0
        self.last = torch.zeros(1)

    def forward(self, x: Tensor) -> Tensor:
        self.b = 20
        self.calls = self.calls + 1
        y = self.sub(x) + self.a + self.b + self.calls
        previous = self.last
        self.last = y.sum().reshape(1)
        return y * previous


@torch.jit.script
class Box:
    def __init__(self, x: Tensor, scale: float):
        self.x = x
        self.scale = scale

    def scaled(self) -> Tensor:
        return self.x * self.scale

    def grow(self, by: float):
        self.scale = self.scale + by


class Objects(torch.nn.Module):
    def forward(self, y: Tensor) -> Tensor:
        box = Box(y, 2.0)
        box.grow(0.5)
        return y * box.x + box.scaled()


if __name__ == "__main__":
    torch.jit.save(torch.jit.script(Attributes()), "runtime/testdata/stateful_attributes.pt")
    torch.jit.save(torch.jit.script(Objects()), "runtime/testdata/stateful_object.pt")
