# Writes the model fuzzer's seed corpus (tiny TorchScript archives); run once from
# the repository root with python3-torch: python3 fuzz/corpus/make_seed_models.py
import torch
from typing import Dict, List

class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(3, 2)
    def forward(self, x):
        return torch.relu(self.l(x)).sum(1)

class Flow(torch.nn.Module):
    def forward(self, x, n: int):
        y = x
        for i in range(n):
            y = y * 2 + i
        if bool(y.sum() > 0):
            return [y, x]
        return [x]

class Dicts(torch.nn.Module):
    def forward(self, d: Dict[str, torch.Tensor], xs: List[torch.Tensor]):
        return {"a": d["a"] + torch.cat(xs, 0).sum(), "b": d["b"].t()}

torch.manual_seed(0)
torch.jit.save(torch.jit.script(Mlp()), "fuzz/corpus/model/mlp.pt")
torch.jit.save(torch.jit.freeze(torch.jit.script(Mlp()).eval()), "fuzz/corpus/model/mlp_frozen.pt")
torch.jit.save(torch.jit.script(Flow()), "fuzz/corpus/model/loop_if.pt")
torch.jit.save(torch.jit.script(Dicts()), "fuzz/corpus/model/dicts.pt")
