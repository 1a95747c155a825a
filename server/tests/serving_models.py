"""Models for the server's tests, scripted from this file (TorchScript needs
their source) and saved into a model repository."""
import json
import os
from typing import Dict, Tuple

import torch


class Mlp(torch.nn.Module):
    """Matrix products: batching may change their rounding (compared within a
    tolerance)."""

    def __init__(self):
        super().__init__()
        self.first = torch.nn.Linear(16, 32)
        self.second = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.second(torch.relu(self.first(x)))


class Pointwise(torch.nn.Module):
    """Row-independent, correctly rounded arithmetic: batching cannot change
    it (compared exactly). Vectorized transcendental functions would not do:
    an element's result may depend on whether it falls in a vector or the
    scalar tail."""

    def forward(self, x):
        return torch.relu(x * 3.0 + 1.0) - x / 7.0

class Ads(torch.nn.Module):
    """Dict and int inputs, a tuple of a tensor and a dict out."""

    def __init__(self):
        super().__init__()
        self.table = torch.nn.EmbeddingBag(50, 8, mode="sum")

    def forward(self, dense: torch.Tensor, sparse: Dict[str, torch.Tensor],
                scale: int) -> Tuple[torch.Tensor, Dict[str, torch.Tensor]]:
        pooled: Dict[str, torch.Tensor] = {}
        for name, ids in sparse.items():
            pooled[name] = self.table(ids)
        return dense * scale, pooled


class Slow(torch.nn.Module):
    """Takes `steps` products of 64x64 matrices: a request that keeps its
    runtime busy for as long as a test needs."""

    def forward(self, x, steps: int):
        for _ in range(steps):
            x = torch.tanh(x @ x)
        return x


def save(repository, name, module, config=None):
    folder = os.path.join(repository, name)
    os.makedirs(folder, exist_ok=True)
    torch.jit.save(torch.jit.script(module.eval()), os.path.join(folder, "model.pt"))
    if config is not None:
        with open(os.path.join(folder, "config.json"), "w") as file:
            json.dump(config, file)


# Kernels bit for bit equal to the JIT's (no fused pointwise math, no oneDNN
# products with their declared tolerance), so the tests compare exactly.
EXACT = {"enable_fusion": False, "prepack_weights": False}


def make_repository(repository):
    torch.manual_seed(0)
    save(repository, "mlp", Mlp(), {
        "max_batch_size": 16, "max_queue_delay_us": 20000, "options": EXACT,
        "inputs": [{"name": "x", "datatype": "FP32", "shape": [-1, 16]}]})
    save(repository, "pointwise", Pointwise(), {"max_batch_size": 64, "max_queue_delay_us": 20000,
                                                 "options": EXACT})
    save(repository, "ads", Ads(), {"options": EXACT})
    save(repository, "slow", Slow(), {"queue_size": 1, "instances": 1})
    os.makedirs(os.path.join(repository, "broken"), exist_ok=True)
    with open(os.path.join(repository, "broken", "model.pt"), "wb") as file:
        file.write(b"not a TorchScript archive")
    os.makedirs(os.path.join(repository, "bad_config"), exist_ok=True)
    torch.jit.save(torch.jit.script(Pointwise()), os.path.join(repository, "bad_config", "model.pt"))
    with open(os.path.join(repository, "bad_config", "config.json"), "w") as file:
        file.write('{"max_batch_sise": 4}')
