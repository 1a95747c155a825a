"""Saves the fork/wait models of //runtime:static_runtime_test (run from the
repository root with Debian's python3-torch):

    /usr/bin/python3 runtime/testdata/save_forks.py
"""
from typing import List

import torch
from torch import Tensor

torch.manual_seed(0)


class Tower(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x: Tensor, scale: float) -> Tensor:
        return torch.relu(self.linear(x)) * scale


class Towers(torch.nn.Module):
    """Two towers in parallel, one more inside an If, one never waited for."""

    def __init__(self):
        super().__init__()
        self.a = Tower()
        self.b = Tower()

    def forward(self, x: Tensor, flag: bool) -> Tensor:
        fa = torch.jit.fork(self.a, x, 0.5)
        fb = torch.jit.fork(self.b, x + 1.0, 2.0)
        unused = torch.jit.fork(self.a, x, 3.0)
        y = torch.tanh(x)
        if flag:
            fc = torch.jit.fork(self.b, y, 1.5)
            y = y + torch.jit.wait(fc)
        return torch.jit.wait(fa) + torch.jit.wait(fb) + y


class FutureList(torch.nn.Module):
    """Futures kept in a list: not inlined, run by the fork kernel."""

    def __init__(self):
        super().__init__()
        self.a = Tower()

    def forward(self, x: Tensor) -> List[Tensor]:
        futures = [torch.jit.fork(self.a, x, 1.0), torch.jit.fork(self.a, x + 1.0, 1.0)]
        return [torch.jit.wait(f) for f in futures]


class Failing(torch.nn.Module):
    def forward(self, x: Tensor, fail: bool) -> Tensor:
        if fail:
            raise RuntimeError("the tower failed")
        return x * 2.0


class FailingFork(torch.nn.Module):
    """Forks in a loop (so not inlined), one of which may raise: the error
    comes out of its wait."""

    def __init__(self):
        super().__init__()
        self.tower = Failing()

    def forward(self, x: Tensor, n: int, fail_at: int) -> List[Tensor]:
        futures: List[torch.jit.Future[Tensor]] = []
        for i in range(n):
            futures.append(torch.jit.fork(self.tower, x + float(i), i == fail_at))
        y = torch.relu(x)
        return [torch.jit.wait(f) + y for f in futures]


def inner_tower(y: Tensor) -> Tensor:
    return torch.tanh(y) * 2.0 + y.sum()


class ThreeTowers(torch.nn.Module):
    """Three towers in parallel, one of them forking a fourth (a function)
    inside an If and waiting for it there; or (`nested_module`) forking a
    module of its own, which freezing cannot fold inside a fork, so that
    the runtime inlines the forks."""

    def __init__(self, nested_module: bool):
        super().__init__()
        self.a = Tower()
        self.b = Tower()
        self.c = NestingModuleTower() if nested_module else NestingTower()

    def forward(self, x: Tensor, flag: bool) -> Tensor:
        fa = torch.jit.fork(self.a, x, 1.0)
        fb = torch.jit.fork(self.b, x * 2.0, 0.5)
        fc = torch.jit.fork(self.c, x, flag)
        return torch.jit.wait(fa) * torch.jit.wait(fb) + torch.jit.wait(fc)


class NestingTower(torch.nn.Module):
    def forward(self, x: Tensor, flag: bool) -> Tensor:
        y = torch.sigmoid(x)
        if flag:
            f = torch.jit.fork(inner_tower, y)
            y = y - torch.jit.wait(f)
        return y


class NestingModuleTower(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Tower()

    def forward(self, x: Tensor, flag: bool) -> Tensor:
        y = torch.sigmoid(x)
        if flag:
            f = torch.jit.fork(self.inner, y, 2.0)
            y = y - torch.jit.wait(f)
        return y


torch.jit.script(Towers().eval()).save("runtime/testdata/fork_towers.pt")
torch.jit.script(ThreeTowers(False).eval()).save("runtime/testdata/fork_three_towers.pt")
torch.jit.script(ThreeTowers(True).eval()).save("runtime/testdata/fork_nested_module.pt")
torch.jit.script(FailingFork().eval()).save("runtime/testdata/fork_failing.pt")
torch.jit.script(FutureList().eval()).save("runtime/testdata/fork_future_list.pt")
