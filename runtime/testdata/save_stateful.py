"""Saves the models of //runtime:compatibility_test that keep state a frozen
graph cannot fold away (run from the repository root with Debian's
python3-torch):

    /usr/bin/python3 runtime/testdata/save_stateful.py

stateful_attributes.pt: forward assigns attributes of its own and of a
submodule (freezing keeps them as attributes), and counts its calls.
stateful_object.pt: forward creates a TorchScript class object, sets and
reads its attributes and calls its methods.
stateful_with.pt: `with` statements (prim::Enter, prim::Exit): torch.no_grad()
and a context manager of its own, nested and in a loop, whose __enter__ and
__exit__ write to an input; on request __enter__ or the block raises.
"""
from typing import Any

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


@torch.jit.script
class Tally:
    def __init__(self, log: Tensor, fail: bool):
        self.log = log
        self.fail = fail

    def __enter__(self) -> float:
        self.log.add_(10.0)
        if self.fail:
            raise ValueError("__enter__ failed")
        return 2.0

    def __exit__(self, type: Any, value: Any, traceback: Any):
        self.log.add_(1.0)


class With(torch.nn.Module):
    def forward(self, x: Tensor, log: Tensor, fail_enter: bool, fail_block: bool) -> Tensor:
        with torch.no_grad():
            y = x * 2.0
        with Tally(log, fail_enter) as scale:
            y = y * scale
            for i in range(2):
                with Tally(log, False) as step:
                    y = y + step * log
                    if fail_block and i == 1:
                        raise ValueError("the block failed")
        return y


if __name__ == "__main__":
    torch.jit.save(torch.jit.script(Attributes()), "runtime/testdata/stateful_attributes.pt")
    torch.jit.save(torch.jit.script(Objects()), "runtime/testdata/stateful_object.pt")
    torch.jit.save(torch.jit.script(With()), "runtime/testdata/stateful_with.pt")
