#!/usr/bin/env python3
"""Saves the quantized benchmark corpus: the quantized models users deploy on CPU.

Tooling only (Debian's python3-torch and -torchvision; no network: random
weights, fixed seeds, calibration on random data). Each model is quantized
in eval mode, scripted with torch.jit.script and written with torch.jit.save
(not frozen), its inputs with torch.save of a tuple, and the quantized
engine it was packed for in a file of its own:

  tools/bench_models/save_quantized_corpus.py OUT_DIR [--only NAME,...] [--list]

writes OUT_DIR/<name>.pt, OUT_DIR/<name>_inputs.pt and OUT_DIR/<name>.engine
(`onednn` or `qnnpack`). Packed weights are made again for the engine that
is current when a model is loaded, so a tool sets that engine first
(`sr --quantized-engine=NAME`). Families: dynamic quantization
(quantize_dynamic on linears and LSTMs), row-wise 8- and 4-bit embedding
bags (the plain ops and torch.ao.nn.quantized.EmbeddingBag modules), and
statically quantized CNNs.
"""
import os
from typing import List

import torch
import torchvision
from torch import Tensor, nn
from torch.ao import quantization as tq

import corpus_cli


def dynamic(model, layers):
    model.eval()
    return tq.quantize_dynamic(model, layers, dtype=torch.qint8)


def qdyn_mlp():
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 64))
    return dynamic(model, {nn.Linear}), (torch.randn(32, 256),)


class LstmTagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(64, 128, num_layers=2, batch_first=True)
        self.head = nn.Linear(128, 16)

    def forward(self, x: Tensor) -> Tensor:
        out, _ = self.lstm(x)
        return self.head(out)


def qdyn_lstm():
    return dynamic(LstmTagger(), {nn.LSTM, nn.Linear}), (torch.randn(4, 20, 64),)


class LinearEncoderLayer(nn.Module):
    """A BERT-style encoder layer written with nn.Linear projections (what
    quantize_dynamic quantizes; nn.TransformerEncoderLayer's quantized form
    does not script)."""

    def __init__(self, width: int, heads: int, hidden: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.ff1 = nn.Linear(width, hidden)
        self.ff2 = nn.Linear(hidden, width)
        self.norm1 = nn.LayerNorm(width)
        self.norm2 = nn.LayerNorm(width)

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        batch, length, width = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        shape = [batch, length, self.heads, width // self.heads]
        q = q.reshape(shape).transpose(1, 2)
        k = k.reshape(shape).transpose(1, 2)
        v = v.reshape(shape).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-1, -2)) / float(width // self.heads) ** 0.5
        scores = scores.masked_fill(mask[:, None, None, :], -1e4)
        context = torch.matmul(scores.softmax(-1), v).transpose(1, 2).reshape(batch, length, width)
        x = self.norm1(x + self.out(context))
        return self.norm2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))


class LinearEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([LinearEncoderLayer(128, 4, 512) for _ in range(2)])

    def forward(self, x: Tensor, mask: Tensor) -> Tensor:
        for layer in self.layers:
            x = layer(x, mask)
        return x


def qdyn_encoder():
    mask = torch.zeros(2, 32, dtype=torch.bool)
    mask[1, 20:] = True
    return dynamic(LinearEncoder(), {nn.Linear}), (torch.randn(2, 32, 128), mask)


class RowwiseEmbeddingAds(nn.Module):
    """Ads model on the row-wise quantized embedding-bag ops, weights packed once."""

    def __init__(self, bits: int):
        super().__init__()
        self.bits = bits
        tables = []
        for rows in (1000, 500, 2000):
            weight = torch.randn(rows, 32)
            if bits == 8:
                tables.append(torch.ops.quantized.embedding_bag_byte_prepack(weight))
            else:
                tables.append(torch.ops.quantized.embedding_bag_4bit_prepack(weight))
        self.t0, self.t1, self.t2 = tables
        self.top = nn.Sequential(nn.Linear(3 * 32 + 16, 64), nn.ReLU(), nn.Linear(64, 1))

    def bag(self, table: Tensor, indices: Tensor, offsets: Tensor) -> Tensor:
        if self.bits == 8:
            return torch.ops.quantized.embedding_bag_byte_rowwise_offsets(
                table, indices, offsets, mode=0, pruned_weights=False,
                include_last_offset=False)
        return torch.ops.quantized.embedding_bag_4bit_rowwise_offsets(
            table, indices, offsets, mode=0, pruned_weights=False, include_last_offset=False)

    def forward(self, dense: Tensor, i0: Tensor, o0: Tensor, i1: Tensor, o1: Tensor,
                i2: Tensor, o2: Tensor) -> Tensor:
        pooled = [self.bag(self.t0, i0, o0), self.bag(self.t1, i1, o1),
                  self.bag(self.t2, i2, o2)]
        return torch.sigmoid(self.top(torch.cat(pooled + [dense], dim=1)))


def bags(batch, rows_list, per_bag=8):
    generator = torch.Generator().manual_seed(1)
    args: List[Tensor] = []
    for rows in rows_list:
        lengths = torch.randint(1, 2 * per_bag, (batch,), generator=generator)
        offsets = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)[:-1]])
        indices = torch.randint(0, rows, (int(lengths.sum()),), generator=generator)
        args += [indices, offsets]
    return args


def rowwise_inputs():
    return (torch.randn(64, 16), *bags(64, (1000, 500, 2000)))


def qemb_byte_ops():
    return RowwiseEmbeddingAds(8), rowwise_inputs()


def qemb_4bit_ops():
    return RowwiseEmbeddingAds(4), rowwise_inputs()


class EmbeddingBagAds(nn.Module):
    """Ads model on nn.EmbeddingBag modules, quantized to torch.ao.nn.quantized.EmbeddingBag."""

    def __init__(self):
        super().__init__()
        self.e0 = nn.EmbeddingBag(1000, 32, mode="sum")
        self.e1 = nn.EmbeddingBag(500, 32, mode="sum")
        self.e2 = nn.EmbeddingBag(2000, 32, mode="sum")
        self.top = nn.Sequential(nn.Linear(3 * 32 + 16, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, dense: Tensor, i0: Tensor, o0: Tensor, i1: Tensor, o1: Tensor,
                i2: Tensor, o2: Tensor) -> Tensor:
        pooled = [self.e0(i0, o0), self.e1(i1, o1), self.e2(i2, o2)]
        return torch.sigmoid(self.top(torch.cat(pooled + [dense], dim=1)))


def embedding_modules(qconfig):
    model = EmbeddingBagAds().eval()
    for name in ("e0", "e1", "e2"):
        getattr(model, name).qconfig = qconfig
    tq.prepare(model, inplace=True)
    tq.convert(model, inplace=True)
    return model, rowwise_inputs()


def qemb_byte_modules():
    return embedding_modules(tq.float_qparams_weight_only_qconfig)


def qemb_4bit_modules():
    return embedding_modules(tq.float_qparams_weight_only_qconfig_4bit)


def static_cnn(factory, engine, size=96):
    torch.backends.quantized.engine = engine
    model = factory(weights=None, quantize=False).eval()
    model.fuse_model()
    model.qconfig = tq.get_default_qconfig(engine)
    tq.prepare(model, inplace=True)
    with torch.no_grad():
        for _ in range(4):
            model(torch.rand(2, 3, size, size))
    tq.convert(model, inplace=True)
    return model, (torch.rand(1, 3, size, size),)


def qstatic_resnet18():
    return static_cnn(torchvision.models.quantization.resnet18, "onednn")


def qstatic_mobilenet_v2():
    return static_cnn(torchvision.models.quantization.mobilenet_v2, "qnnpack")


MODELS = {
    "qdyn_mlp": (qdyn_mlp, "onednn"),
    "qdyn_lstm": (qdyn_lstm, "onednn"),
    "qdyn_encoder": (qdyn_encoder, "onednn"),
    "qemb_byte_ops": (qemb_byte_ops, "onednn"),
    "qemb_4bit_ops": (qemb_4bit_ops, "onednn"),
    "qemb_byte_modules": (qemb_byte_modules, "onednn"),
    "qemb_4bit_modules": (qemb_4bit_modules, "onednn"),
    "qstatic_resnet18": (qstatic_resnet18, "onednn"),
    "qstatic_mobilenet_v2": (qstatic_mobilenet_v2, "qnnpack"),
}


def save(name, out_dir):
    make, engine = MODELS[name]
    torch.backends.quantized.engine = engine
    corpus_cli.save_scripted(make, name, out_dir)
    with open(os.path.join(out_dir, name + ".engine"), "w") as f:
        f.write(engine + "\n")


def main():
    corpus_cli.main(__doc__, __file__, MODELS, save)


if __name__ == "__main__":
    main()
