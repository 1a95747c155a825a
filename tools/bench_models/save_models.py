#!/usr/bin/env python3
"""Saves the small benchmark models of the README's PyTorch SR comparison.

Tooling only (Debian's python3-torch). Each model is an `nn.Module`
scripted with torch.jit.script and written with torch.jit.save (not frozen:
every tool freezes it itself), its inputs with torch.save of a tuple, as a
user would save them:

  tools/bench_models/save_models.py OUT_DIR

writes OUT_DIR/<name>.pt and OUT_DIR/<name>_inputs.pt for: ads (dict and
list inputs, embedding bags, MLP), inplace (in-place arithmetic and
activations, masked_fill_, setitem), multi_output (chunk/split views,
several results), lstm (nn.LSTM), dlrm (bottom MLP, embedding bags, pairwise
dot interaction, top MLP), control_flow (data-dependent If, loops),
forked_ads2 and forked_ads3 (two and three equal towers of embedding bag and
MLP run in parallel with torch.jit.fork), dict_ads (dict and list inputs
through stack/cat/narrow/slice/transpose/reshape/clamp/log1p/sigmoid),
containers (returns a tuple of a tensor, a list and a dict) and transformer
(a 2-layer nn.TransformerEncoder).
tools/bench_models/compare.sh runs `sr bench --against=pytorch-sr` on them.
"""
import os
import sys
from typing import Dict, List, Tuple

import torch
from torch import Tensor, nn

torch.manual_seed(0)


class Ads(nn.Module):
    def __init__(self):
        super().__init__()
        self.bags = nn.ModuleList(
            [nn.EmbeddingBag(1000, 16, mode="sum") for _ in range(3)])
        self.dense = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16))
        self.top = nn.Sequential(nn.Linear(16 * 4, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, dense: Dict[str, Tensor], ids: List[Tensor],
                offsets: List[Tensor]) -> Tensor:
        x = torch.cat([dense["age"], dense["clicks"], dense["history"]], dim=1)
        parts = [self.dense(x)]
        for i, bag in enumerate(self.bags):
            parts.append(bag(ids[i], offsets[i]))
        return torch.sigmoid(self.top(torch.cat(parts, dim=1)))


def ads_inputs(batch=16):
    dense = {"age": torch.rand(batch, 1), "clicks": torch.rand(batch, 7),
             "history": torch.rand(batch, 24)}
    ids = [torch.randint(0, 1000, (batch * 5,)) for _ in range(3)]
    offsets = [torch.arange(0, batch * 5, 5) for _ in range(3)]
    return (dense, ids, offsets)


class InPlace(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(32, 32)
        self.scale = nn.Parameter(torch.rand(32))

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        y = self.linear(x)
        y.mul_(self.scale)
        y.add_(1.0)
        y.relu_()
        y.clamp_(0.0, 4.0)
        y.masked_fill_(mask, 0.0)
        z = y.clone()
        z[:, 0] = 1.0
        z.sub_(y, alpha=0.5)
        z.div_(2.0)
        z.sigmoid_()
        return z


def inplace_inputs(batch=16):
    return (torch.randn(batch, 32), torch.rand(batch, 32) > 0.8)


class MultiOutput(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(24, 48)

    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
        h = self.linear(x)
        a, b, c = h.chunk(3, dim=1)
        first, rest = h.split([8, 40], dim=1)
        top = h[:, :4].transpose(0, 1)
        return torch.tanh(a) * b, c.sum(dim=1), first.unsqueeze(0) + rest.mean(), top


def multi_output_inputs(batch=16):
    return (torch.randn(batch, 24),)


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(32, 32, num_layers=1, batch_first=True)
        self.head = nn.Linear(32, 4)

    def forward(self, x: Tensor) -> Tensor:
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


def lstm_inputs(batch=4):
    return (torch.randn(batch, 10, 32),)


class Dlrm(nn.Module):
    def __init__(self, tables=4, dim=16):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(13, 64), nn.ReLU(), nn.Linear(64, dim), nn.ReLU())
        self.bags = nn.ModuleList(
            [nn.EmbeddingBag(500, dim, mode="sum") for _ in range(tables)])
        pairs = (tables + 1) * tables // 2
        self.top = nn.Sequential(nn.Linear(dim + pairs, 64), nn.ReLU(), nn.Linear(64, 1))
        rows, cols = torch.tril_indices(tables + 1, tables + 1, offset=-1)
        self.register_buffer("rows", rows)
        self.register_buffer("cols", cols)

    def forward(self, dense: Tensor, ids: Tensor, offsets: Tensor) -> Tensor:
        x = self.bottom(dense)
        features = [x]
        for i, bag in enumerate(self.bags):
            features.append(bag(ids[i], offsets[i]))
        t = torch.stack(features, dim=1)
        z = torch.bmm(t, t.transpose(1, 2))
        flat = z[:, self.rows, self.cols]
        return torch.sigmoid(self.top(torch.cat([x, flat], dim=1)))


def dlrm_inputs(batch=16, tables=4):
    ids = torch.randint(0, 500, (tables, batch * 3))
    offsets = torch.arange(0, batch * 3, 3).repeat(tables, 1)
    return (torch.randn(batch, 13), ids, offsets)


class ControlFlow(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 16)
        self.b = nn.Linear(16, 16)

    def forward(self, x: Tensor, steps: int) -> Tensor:
        if bool(x.sum() > 0):
            y = torch.relu(self.a(x))
        else:
            y = torch.tanh(self.b(x))
        for _ in range(steps):
            y = y + torch.sigmoid(self.a(y)) * 0.5
        i = 0
        while i < 2 and bool(y.mean() < 10.0):
            y = y * 1.5
            i += 1
        return y


def control_flow_inputs(batch=8):
    return (torch.randn(batch, 16), 3)


class AdsTower(nn.Module):
    """One tower of a forked ads model: pooled embeddings of its own ids and
    the dense features through an MLP."""

    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(20000, 64, mode="sum")
        self.mlp = nn.Sequential(nn.Linear(64 + 32, 256), nn.ReLU(), nn.Linear(256, 256),
                                 nn.ReLU(), nn.Linear(256, 64))

    def forward(self, dense: Tensor, ids: Tensor, offsets: Tensor) -> Tensor:
        return self.mlp(torch.cat([self.bag(ids, offsets), dense], dim=1))


class ForkedAds(nn.Module):
    """Equal towers computed in parallel with torch.jit.fork (as ads ranking
    models do), joined by a top MLP."""

    def __init__(self, towers: int):
        super().__init__()
        self.towers = nn.ModuleList([AdsTower() for _ in range(towers)])
        self.top = nn.Sequential(nn.Linear(64 * towers, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, dense: Tensor, ids: List[Tensor], offsets: List[Tensor]) -> Tensor:
        futures: List[torch.jit.Future[Tensor]] = []
        for i, tower in enumerate(self.towers):
            futures.append(torch.jit.fork(tower, dense, ids[i], offsets[i]))
        parts = [torch.jit.wait(future) for future in futures]
        return torch.sigmoid(self.top(torch.cat(parts, dim=1)))


def forked_ads_inputs(towers, batch=128):
    ids = [torch.randint(0, 20000, (batch * 20,)) for _ in range(towers)]
    offsets = [torch.arange(0, batch * 20, 20) for _ in range(towers)]
    return (torch.rand(batch, 32), ids, offsets)


class DictAds(nn.Module):
    """Ads features as a user passes them: a dict of dense tensors and a
    list of sparse-looking ones, reshaped, sliced and squashed before a
    small MLP."""

    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, dense: Dict[str, Tensor], lists: List[Tensor]) -> Tensor:
        stacked = torch.stack([dense["a"], dense["b"], dense["c"], dense["d"]], dim=1)
        flat = stacked.reshape(stacked.size(0), -1)
        head = flat.narrow(1, 0, 16)
        tail = flat[:, 16:32]
        pooled = torch.cat([x.transpose(0, 1)[:, :8] for x in lists], dim=1)
        features = torch.cat([torch.log1p(head.clamp(min=0.0)), torch.sigmoid(tail),
                              pooled.clamp(-1.0, 1.0)], dim=1)
        return torch.sigmoid(self.mlp(features))


def dict_ads_inputs(batch=16):
    dense = {k: torch.rand(batch, 8) for k in "abcd"}
    lists = [torch.randn(8, batch) for _ in range(4)]
    return (dense, lists)


class Containers(nn.Module):
    """Returns a tuple of a tensor, a list of tensors and a dict of tensors,
    as multi-task models do."""

    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(32, 64)
        self.heads = nn.ModuleList([nn.Linear(64, 8) for _ in range(3)])

    def forward(self, x: Tensor) -> Tuple[Tensor, List[Tensor], Dict[str, Tensor]]:
        h = torch.relu(self.trunk(x))
        logits = [head(h) for head in self.heads]
        scores: Dict[str, Tensor] = {}
        for i, logit in enumerate(logits):
            scores[str(i)] = torch.softmax(logit, dim=1)
        return h.mean(dim=1), logits, scores


def containers_inputs(batch=16):
    return (torch.randn(batch, 32),)


def transformer():
    layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                       dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=2)


def transformer_inputs(batch=2, length=16):
    return (torch.randn(batch, length, 64),)


MODELS = {
    "ads": (Ads, ads_inputs),
    "inplace": (InPlace, inplace_inputs),
    "multi_output": (MultiOutput, multi_output_inputs),
    "lstm": (Lstm, lstm_inputs),
    "dlrm": (Dlrm, dlrm_inputs),
    "control_flow": (ControlFlow, control_flow_inputs),
    "forked_ads2": (lambda: ForkedAds(2), lambda: forked_ads_inputs(2)),
    "forked_ads3": (lambda: ForkedAds(3), lambda: forked_ads_inputs(3)),
    "dict_ads": (DictAds, dict_ads_inputs),
    "containers": (Containers, containers_inputs),
    "transformer": (transformer, transformer_inputs),
}


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) == 2 else 2)
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for name, (model_class, make_inputs) in MODELS.items():
        model = torch.jit.script(model_class().eval())
        inputs = make_inputs()
        with torch.no_grad():
            model(*inputs)  # the model runs on its inputs
        torch.jit.save(model, os.path.join(out_dir, f"{name}.pt"))
        torch.save(inputs, os.path.join(out_dir, f"{name}_inputs.pt"))
        print(f"{out_dir}/{name}.pt")


if __name__ == "__main__":
    main()
