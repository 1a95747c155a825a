#!/usr/bin/env python3
"""Saves the broad benchmark corpus: real models of every family users bring.

Tooling only (Debian's python3-torch, -torchvision, -torchaudio and
-torchtext; no network: random weights, fixed seeds, batch-norm statistics
drawn at random). Each model is put in eval mode, scripted with
torch.jit.script and written with torch.jit.save (not frozen: every tool
freezes it itself; one CNN is traced and frozen instead, as users also save
them), its inputs with torch.save of a tuple:

  tools/bench_models/save_broad_corpus.py OUT_DIR [--only NAME,...] [--list]

writes OUT_DIR/<name>.pt and OUT_DIR/<name>_inputs.pt. Sizes are cut down
(small images, short clips, few layers) so that each model benches in
seconds; the shapes of their layers are the real ones. Families:
classification CNNs (torchvision, one traced), segmentation, video, vision
transformers (ViT, Swin), audio front ends
(1D convolutions, conv_transpose1d, group norm, PReLU, GLU), speech
encoders, RNNs of every kind, NLP encoders with and without padding masks
(torchtext's RoBERTa, nn.TransformerEncoder, nn.MultiheadAttention),
seq2seq, ads. tools/bench_models/compare.sh --broad runs
`sr bench --against=pytorch-sr` on them.
"""
import importlib.util
import os
import sys
import types
from typing import Dict, List, Optional, Tuple

import torch
import torchaudio
import torchvision
from torch import Tensor, nn

import corpus_cli


def randomize_norms(model):
    for module in model.modules():
        if isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    return model


def image(batch=1, size=96):
    return (torch.rand(batch, 3, size, size),)


# --- torchvision -----------------------------------------------------------

def vision(factory, size=96, **kwargs):
    return lambda: (randomize_norms(factory(**kwargs)), image(1, size))


def traced(factory, size=96):
    """A torchvision CNN as torch.jit.trace records it (aten::_convolution)
    and torch.jit.freeze folds it: the other way users save models."""
    def make():
        model = randomize_norms(factory()).eval()
        inputs = image(1, size)
        with torch.no_grad():
            return torch.jit.freeze(torch.jit.trace(model, inputs)), inputs
    return make


def segmentation(factory, size=96):
    """A segmentation network: a dict of outputs, upsampled to the input."""
    return lambda: (randomize_norms(factory(weights=None, weights_backbone=None, num_classes=5)),
                    image(1, size))


def video(factory, frames=8, size=48):
    """A video classifier (3D convolutions) on a short clip."""
    return lambda: (randomize_norms(factory()), (torch.rand(1, 3, frames, size, size),))


def vit():
    model = torchvision.models.VisionTransformer(
        image_size=96, patch_size=16, num_layers=4, num_heads=4, hidden_dim=192, mlp_dim=768,
        num_classes=100)
    return model, image(1, 96)


# --- torchaudio ------------------------------------------------------------

def conv_tasnet():
    # Dilated depthwise 1D convolutions, group norm, PReLU, conv_transpose1d.
    model = torchaudio.models.ConvTasNet(num_sources=2, enc_kernel_size=16,
                                         enc_num_feats=128, msk_kernel_size=3,
                                         msk_num_feats=64, msk_num_hidden_feats=128,
                                         msk_num_layers=4, msk_num_stacks=2)
    return model, (torch.randn(1, 1, 8000),)


def wav2vec2():
    # Feature extractor of large-kernel strided 1D convolutions with group
    # norm, then a transformer encoder (as wav2vec2_base, fewer layers).
    model = torchaudio.models.wav2vec2_model(
        extractor_mode="group_norm", extractor_conv_layer_config=None,
        extractor_conv_bias=False, encoder_embed_dim=256, encoder_projection_dropout=0.0,
        encoder_pos_conv_kernel=32, encoder_pos_conv_groups=16, encoder_num_layers=2,
        encoder_num_heads=4, encoder_attention_dropout=0.0, encoder_ff_interm_features=512,
        encoder_ff_interm_dropout=0.0, encoder_dropout=0.0, encoder_layer_norm_first=False,
        encoder_layer_drop=0.0, aux_num_out=32)
    return model, (torch.randn(1, 8000),)


def wav2vec2_with_lengths():
    model, _ = wav2vec2()
    return model, (torch.randn(2, 8000), torch.tensor([8000, 6000]))


def wav2letter():
    return (torchaudio.models.Wav2Letter(num_classes=40, input_type="mfcc", num_features=40),
            (torch.randn(1, 40, 200),))


class SpeechRnn(nn.Module):
    """DeepSpeech's shape (torchaudio's own does not script in 0.13): clipped
    ReLU linears, a bidirectional nn.RNN(nonlinearity='relu'), log-softmax."""

    def __init__(self, features=40, hidden=256, classes=40):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(features, hidden), nn.Hardtanh(0.0, 20.0),
                                nn.Linear(hidden, hidden), nn.Hardtanh(0.0, 20.0))
        self.rnn = nn.RNN(hidden, hidden, nonlinearity="relu", bidirectional=True,
                          batch_first=True)
        self.out = nn.Linear(2 * hidden, classes)

    def forward(self, x: Tensor) -> Tensor:
        states, _ = self.rnn(self.fc(x))
        return torch.log_softmax(self.out(states), -1)


def speech_rnn():
    return SpeechRnn(), (torch.randn(1, 100, 40),)


def conformer():
    # Depthwise 1D convolutions, GLU, attention with a padding mask from lengths.
    model = torchaudio.models.Conformer(input_dim=80, num_heads=4, ffn_dim=256, num_layers=2,
                                        depthwise_conv_kernel_size=31)
    return model, (torch.randn(2, 100, 80), torch.tensor([100, 70]))


# --- torchtext (its compiled extension is a stub in Debian: load the model
# code, plain PyTorch, without the package's __init__) -------------------

def load_torchtext_roberta():
    root = os.path.join(os.path.dirname(torch.__file__), "..", "torchtext")
    root = os.path.normpath(root)
    if not os.path.isdir(root):
        root = "/usr/lib/python3/dist-packages/torchtext"
    for name, path in (("torchtext", root), ("torchtext.models", os.path.join(root, "models")),
                       ("torchtext.models.roberta", os.path.join(root, "models", "roberta"))):
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = [path]
            sys.modules[name] = package
    modules_path = os.path.join(root, "models", "roberta", "modules.py")
    spec = importlib.util.spec_from_file_location("torchtext.models.roberta.modules", modules_path)
    modules = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = modules
    spec.loader.exec_module(modules)
    return modules


def roberta():
    # RoBERTa-style encoder: padding positions masked (padding_idx 1).
    modules = load_torchtext_roberta()
    encoder = modules.TransformerEncoder(vocab_size=1000, embedding_dim=256, padding_idx=1,
                                         max_seq_len=128, num_encoder_layers=2,
                                         num_attention_heads=4, ffn_dimension=512, dropout=0.0)
    tokens = torch.randint(2, 1000, (2, 48))
    tokens[1, 30:] = 1
    return encoder, (tokens,)


# --- hand-written NLP, seq2seq, RNN and ads models --------------------------

class BertEncoder(nn.Module):
    """nn.TransformerEncoder with a key padding mask (the nested-tensor path)."""

    def __init__(self, layers=2, width=256, heads=4):
        super().__init__()
        self.embed = nn.Embedding(1000, width)
        layer = nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(width, 2)

    def forward(self, tokens: Tensor, padding: Tensor) -> Tensor:
        x = self.encoder(self.embed(tokens), src_key_padding_mask=padding)
        return self.head(x[:, 0])


def bert_masked():
    tokens = torch.randint(0, 1000, (4, 64))
    padding = torch.zeros(4, 64, dtype=torch.bool)
    padding[1, 40:] = True
    padding[3, 20:] = True
    return BertEncoder(), (tokens, padding)


def bert_unmasked():
    tokens = torch.randint(0, 1000, (4, 64))
    return BertEncoder(), (tokens, torch.zeros(4, 64, dtype=torch.bool))


class CrossAttention(nn.Module):
    """nn.MultiheadAttention over a memory with a key padding mask."""

    def __init__(self, width=256, heads=8):
        super().__init__()
        self.attention = nn.MultiheadAttention(width, heads, batch_first=True)
        self.norm = nn.LayerNorm(width)

    def forward(self, query: Tensor, memory: Tensor, padding: Tensor) -> Tensor:
        attended, _ = self.attention(query, memory, memory, key_padding_mask=padding,
                                     need_weights=False)
        return self.norm(query + attended)


def cross_attention():
    padding = torch.zeros(2, 50, dtype=torch.bool)
    padding[0, 35:] = True
    return CrossAttention(), (torch.randn(2, 20, 256), torch.randn(2, 50, 256), padding)


class RnnTagger(nn.Module):
    def __init__(self, kind: str, bidirectional: bool, nonlinearity: str = "tanh"):
        super().__init__()
        self.embed = nn.Embedding(500, 64)
        if kind == "rnn":
            self.rnn = nn.RNN(64, 128, num_layers=2, nonlinearity=nonlinearity,
                              batch_first=True, bidirectional=bidirectional)
        elif kind == "gru":
            self.rnn = nn.GRU(64, 128, num_layers=2, batch_first=True,
                              bidirectional=bidirectional)
        elif kind == "lstm_proj":  # speech-style LSTMP: h projected to 64
            self.rnn = nn.LSTM(64, 128, num_layers=2, batch_first=True,
                               bidirectional=bidirectional, proj_size=64)
        else:
            self.rnn = nn.LSTM(64, 128, num_layers=2, batch_first=True,
                               bidirectional=bidirectional)
        width = 64 if kind == "lstm_proj" else 128
        self.out = nn.Linear(2 * width if bidirectional else width, 10)

    def forward(self, tokens: Tensor) -> Tensor:
        states, _ = self.rnn(self.embed(tokens))
        return self.out(states)


def rnn_tagger(kind, bidirectional, nonlinearity="tanh"):
    return lambda: (RnnTagger(kind, bidirectional, nonlinearity),
                    (torch.randint(0, 500, (4, 40)),))


class PackedLstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(32, 64, batch_first=True)

    def forward(self, x: Tensor, lengths: Tensor) -> Tensor:
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True,
                                                   enforce_sorted=False)
        _, (h, _) = self.lstm(packed)
        return h[-1]


def packed_lstm():
    return PackedLstm(), (torch.randn(4, 30, 32), torch.tensor([30, 12, 25, 7]))


class Seq2Seq(nn.Module):
    """A GRU encoder and a greedy GRU-cell decoder loop with attention."""

    def __init__(self, vocab=300, width=128, steps=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.encoder = nn.GRU(width, width, batch_first=True)
        self.cell = nn.GRUCell(2 * width, width)
        self.out = nn.Linear(width, vocab)
        self.steps = steps

    def forward(self, source: Tensor) -> Tensor:
        memory, h = self.encoder(self.embed(source))
        state = h[0]
        token = torch.zeros(source.size(0), dtype=torch.long)
        tokens: List[Tensor] = []
        for _ in range(self.steps):
            scores = torch.bmm(memory, state.unsqueeze(2)).squeeze(2)
            context = torch.bmm(torch.softmax(scores, 1).unsqueeze(1), memory).squeeze(1)
            state = self.cell(torch.cat([self.embed(token), context], 1), state)
            token = self.out(state).argmax(1)
            tokens.append(token)
        return torch.stack(tokens, 1)


def seq2seq():
    return Seq2Seq(), (torch.randint(0, 300, (2, 24)),)


class TranslationDecoder(nn.Module):
    """nn.TransformerDecoder: causal self-attention, cross-attention over a
    memory with a padding mask (the packed in-projection split by the query's
    width), as a translation model decodes teacher-forced."""

    def __init__(self, vocab=500, width=128, heads=4, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        layer = nn.TransformerDecoderLayer(width, heads, 4 * width, dropout=0.0,
                                           batch_first=True)
        self.decoder = nn.TransformerDecoder(layer, layers)
        self.out = nn.Linear(width, vocab)

    def forward(self, tokens: Tensor, memory: Tensor, memory_padding: Tensor) -> Tensor:
        n = tokens.size(1)
        causal = torch.triu(torch.full((n, n), float("-inf")), 1)
        x = self.decoder(self.embed(tokens), memory, tgt_mask=causal,
                         memory_key_padding_mask=memory_padding)
        return self.out(x)


def transformer_decoder():
    padding = torch.zeros(2, 30, dtype=torch.bool)
    padding[1, 22:] = True
    return TranslationDecoder(), (torch.randint(0, 500, (2, 16)), torch.randn(2, 30, 128),
                                  padding)


class CausalLm(nn.Module):
    """A decoder-only language model generating greedily: a causal mask over a
    growing sequence, one more token per step."""

    def __init__(self, vocab=500, width=128, heads=4, layers=2, context=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.position = nn.Parameter(torch.randn(context, width) * 0.02)
        layer = nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0,
                                           batch_first=True, norm_first=True,
                                           activation="gelu")
        self.blocks = nn.TransformerEncoder(layer, layers)

    def forward(self, tokens: Tensor, steps: int) -> Tensor:
        for _ in range(steps):
            n = tokens.size(1)
            causal = torch.triu(torch.full((n, n), float("-inf")), 1)
            h = self.blocks(self.embed(tokens) + self.position[:n], mask=causal)
            logits = h[:, -1] @ self.embed.weight.t()
            tokens = torch.cat([tokens, logits.argmax(-1, keepdim=True)], 1)
        return tokens


def causal_lm():
    return CausalLm(), (torch.randint(0, 500, (2, 8)), 6)


class AdsRanker(nn.Module):
    """Embedding bags from a dict of id lists, dense MLP, dot interactions."""

    def __init__(self, tables=6, dim=32):
        super().__init__()
        self.names = [f"f{i}" for i in range(tables)]
        self.bags = nn.ModuleDict({n: nn.EmbeddingBag(5000, dim, mode="sum") for n in self.names})
        self.bottom = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, dim), nn.ReLU())
        pairs = (tables + 1) * tables // 2
        pair_index = torch.triu_indices(tables + 1, tables + 1, 1)
        self.register_buffer("rows", pair_index[0])
        self.register_buffer("cols", pair_index[1])
        self.top = nn.Sequential(nn.Linear(dim + pairs, 128), nn.ReLU(), nn.Linear(128, 1))

    def forward(self, dense: Tensor, ids: Dict[str, Tensor],
                offsets: Dict[str, Tensor]) -> Tensor:
        x = self.bottom(dense)
        features = [x]
        for name, bag in self.bags.items():
            features.append(bag(ids[name], offsets[name]))
        stacked = torch.stack(features, 1)
        dots = torch.bmm(stacked, stacked.transpose(1, 2))
        return torch.sigmoid(self.top(torch.cat([x, dots[:, self.rows, self.cols]], 1)))


def ads_ranker():
    batch = 32
    names = [f"f{i}" for i in range(6)]
    ids = {n: torch.randint(0, 5000, (batch * 4,)) for n in names}
    offsets = {n: torch.arange(0, batch * 4, 4) for n in names}
    return AdsRanker(), (torch.rand(batch, 16), ids, offsets)


class TextClassifier(nn.Module):
    """fastText-style: mean embedding bag of a padded batch, two linears."""

    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(20000, 64, mode="mean", padding_idx=0)
        self.fc = nn.Sequential(nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 4))

    def forward(self, tokens: Tensor) -> Tensor:
        return self.fc(self.bag(tokens))


def text_classifier():
    tokens = torch.randint(1, 20000, (16, 40))
    tokens[::2, 25:] = 0
    return TextClassifier(), (tokens,)


MODELS = {
    # classification CNNs of several shapes
    "mobilenet_v2": vision(torchvision.models.mobilenet_v2),
    "efficientnet_b0": vision(torchvision.models.efficientnet_b0),
    "regnet_y_400mf": vision(torchvision.models.regnet_y_400mf),
    "mnasnet0_5": vision(torchvision.models.mnasnet0_5),
    "convnext_tiny": vision(torchvision.models.convnext_tiny, size=64),
    "googlenet": vision(torchvision.models.googlenet, aux_logits=False, init_weights=True),
    "resnext50_32x4d": vision(torchvision.models.resnext50_32x4d, size=64),
    "alexnet": vision(torchvision.models.alexnet, size=96),
    "shufflenet_v2_x1_0": vision(torchvision.models.shufflenet_v2_x1_0),
    "densenet121": vision(torchvision.models.densenet121, size=64),
    "squeezenet1_1": vision(torchvision.models.squeezenet1_1),
    "mobilenet_v3_large": vision(torchvision.models.mobilenet_v3_large),
    "resnet18_traced": traced(torchvision.models.resnet18),
    "deeplabv3_mobilenet": segmentation(
        torchvision.models.segmentation.deeplabv3_mobilenet_v3_large),
    # video: 3D convolutions, full and factored into (2+1)D
    "r3d_18": video(torchvision.models.video.r3d_18),
    "r2plus1d_18": video(torchvision.models.video.r2plus1d_18),
    # vision transformers
    "vit": vit,
    "swin_t": vision(torchvision.models.swin_t, size=64),
    # audio front ends and speech
    "conv_tasnet": conv_tasnet,
    "wav2vec2": wav2vec2,
    "wav2vec2_lengths": wav2vec2_with_lengths,
    "wav2letter": wav2letter,
    "speech_rnn": speech_rnn,
    "conformer": conformer,
    # NLP encoders, with and without padding masks
    "roberta": roberta,
    "bert_masked": bert_masked,
    "bert_unmasked": bert_unmasked,
    "cross_attention": cross_attention,
    # RNNs of every kind
    "rnn_tanh": rnn_tagger("rnn", False),
    "rnn_relu_bi": rnn_tagger("rnn", True, "relu"),
    "gru": rnn_tagger("gru", False),
    "gru_bi": rnn_tagger("gru", True),
    "lstm_bi": rnn_tagger("lstm", True),
    "lstm_proj_bi": rnn_tagger("lstm_proj", True),
    "packed_lstm": packed_lstm,
    "seq2seq": seq2seq,
    "transformer_decoder": transformer_decoder,
    "causal_lm": causal_lm,
    # ads and text classification
    "ads_ranker": ads_ranker,
    "text_classifier": text_classifier,
}


def save(name, out_dir):
    corpus_cli.save_scripted(MODELS[name], name, out_dir)


def main():
    corpus_cli.main(__doc__, __file__, MODELS, save)


if __name__ == "__main__":
    main()
