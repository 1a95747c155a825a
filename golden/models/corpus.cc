#include "golden/models/corpus.h"

#include "ATen/CPUGeneratorImpl.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "load/load.h"

namespace static_runtime {
namespace corpus {

InputRng::InputRng(uint64_t seed) : generator_(at::detail::createCPUGenerator(seed)) {}

at::Tensor InputRng::Normal(at::IntArrayRef shape) { return at::randn(shape, generator_); }

at::Tensor InputRng::Integers(int64_t low, int64_t high, at::IntArrayRef shape) {
  return at::randint(low, high, shape, generator_);
}

namespace {

using Inputs = std::vector<c10::IValue>;

// The weights of the models of nn.TransformerEncoderLayer's eval-mode op:
// width 8, 2 heads, feed-forward 16.
std::vector<std::pair<std::string, std::vector<int64_t>>> EncoderLayerWeights() {
  return {{"w_qkv", {24, 8}}, {"b_qkv", {24}}, {"w_o", {8, 8}},    {"b_o", {8}},
          {"ln1_w", {8}},     {"ln1_b", {8}},  {"w_ff1", {16, 8}}, {"b_ff1", {16}},
          {"w_ff2", {8, 16}}, {"ln2_w", {8}},  {"ln2_b", {8}}};
}

// Three sequences of seq, 1 and seq - size tokens (seq = 2 + 3 size) of
// width 8, padded to [3, seq, 8], and which of their tokens are kept.
Inputs ThreeSequences(InputRng& rng, int64_t size) {
  const int64_t seq = 2 + 3 * size;
  const at::Tensor lengths = at::tensor({seq, int64_t{1}, seq - size}).unsqueeze(1);
  return {rng.Normal({3, seq, 8}), at::arange(seq).unsqueeze(0) < lengths};
}

std::vector<Model> MakeModels() {
  std::vector<Model> models;
  auto add = [&models](Model model) { models.push_back(std::move(model)); };

  add({"mlp",
       R"(
def forward(self, x):
    h = torch.relu(torch.linear(x, self.w1, self.b1))
    h = torch.gelu(torch.linear(h, self.w2, self.b2))
    return torch.linear(h, self.w3)
)",
       {{"w1", {32, 16}}, {"b1", {32}}, {"w2", {32, 32}}, {"b2", {32}}, {"w3", {4, 32}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({4 * size, 16})};
       }});

  add({"conv_bn_residual",
       R"(
def forward(self, x):
    y = torch.conv2d(x, self.conv_w, self.conv_b, [1, 1], [1, 1])
    y = torch.batch_norm(y, self.bn_w, self.bn_b, self.bn_mean, self.bn_var, False, 0.1, 1e-5, False)
    y = torch.relu(y) + x
    y = torch.max_pool2d(y, [2, 2])
    y = torch.adaptive_avg_pool2d(y, [1, 1])
    return torch.flatten(y, 1)
)",
       {{"conv_w", {3, 3, 3, 3}},
        {"conv_b", {3}},
        {"bn_w", {3}},
        {"bn_b", {3}},
        {"bn_mean", {3}},
        {"bn_var", {3}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 3, 4 * size, 4 * size})};
       }});

  // A uint8 image normalized in place after the conversion (the conversion
  // copies, so the writes do not reach the input).
  // ConvMixer / MaxViT blocks: gelu on convolutions' results, which the
  // runtime may hold channels-last (ops/activations/gelu.cc).
  add({"conv_gelu_mixer",
       R"(
def forward(self, x):
    y = torch.gelu(torch.conv2d(x, self.stem_w, self.stem_b, [2, 2], [1, 1]))
    z = torch.gelu(torch.conv2d(y, self.dw_w, None, [1, 1], [1, 1], [1, 1], 4))
    z = torch.batch_norm(z, self.bn_w, self.bn_b, self.bn_mean, self.bn_var, False, 0.1, 1e-5, False)
    z = torch.gelu(torch.conv2d(z + y, self.pw_w, None), approximate="tanh")
    return torch.flatten(torch.adaptive_avg_pool2d(z, [1, 1]), 1)
)",
       {{"stem_w", {4, 3, 3, 3}},
        {"stem_b", {4}},
        {"dw_w", {4, 1, 3, 3}},
        {"bn_w", {4}},
        {"bn_b", {4}},
        {"bn_mean", {4}},
        {"bn_var", {4}},
        {"pw_w", {6, 4, 1, 1}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 3, 4 * size + 2, 4 * size})};
       }});

  add({"image_uint8_normalize",
       R"(
def forward(self, image):
    x = image.float()
    x.div_(255.0)
    x.sub_(0.5)
    y = torch.conv2d(x, self.conv_w, self.conv_b, [1, 1], [1, 1])
    return torch.relu(y)
)",
       {{"conv_w", {4, 3, 3, 3}}, {"conv_b", {4}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Integers(0, 256, {size, 3, 4 * size, 4 * size}).to(at::kByte)};
       }});

  // copy_ into an intermediate that is written again afterwards (found by
  // fuzz/random_graph_test: removing the copy_ made the write reach x).
  add({"copy_into_intermediate",
       R"(
def forward(self, x):
    y = torch.relu(x)
    y.copy_(x)
    z = torch.relu(y)
    y.add_(x)
    return (y, z)
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 3})};
       }});

  add({"cat_list",
       R"(
def forward(self, x, y):
    z = torch.cat([x, torch.relu(y), x * 2.0], 1)
    return torch.cat([z, z], 0).sum(1)
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 3}), rng.Normal({size, 2 * size})};
       }});

  add({"stack_list",
       R"(
def forward(self, x, y):
    s = torch.stack([x, y, x + y], 0)
    return torch.stack([s.sum(0), s.mean(0)], 1)
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 5}), rng.Normal({size, 5})};
       }});

  add({"split_unpack",
       R"(
def forward(self, x):
    a, b = x.split(3, 1)
    c, d, e = x.split_with_sizes([1, 2, 3], 1)
    return a * b + torch.cat([c, d], 1) - e
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({2 * size, 6})};
       }});

  add({"chunk_unbind",
       R"(
def forward(self, x):
    i, f, g, o = x.chunk(4, 1)
    p, q = x.unbind(0)
    return torch.sigmoid(i) * torch.tanh(g) + f * o, p - q
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({2, 4 * size})};
       }});

  add({"views_chain",
       R"(
def forward(self, x):
    y = x.reshape(-1, 4).transpose(0, 1).unsqueeze(0)
    z = y.squeeze(0).permute(1, 0).flatten()
    w = z.view(-1, 2).t().expand(3, 2, -1)
    n = x.narrow(0, 0, 1).select(1, 0)
    return w.sum(0) + 1.0, n.sum()
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({2 * size, 4})};
       }});

  add({"view_of_input_returned",
       R"(
def forward(self, x):
    return x.view(-1), x.transpose(0, 1), x.reshape(2, -1).relu()
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({2, 3 * size})};
       }});

  add({"inplace_mutation",
       R"(
def forward(self, x):
    y = x.clone()
    y.add_(1.0)
    y.relu_()
    z = y * 2.0
    z.mul_(y)
    return z
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 7})};
       }});

  // A result made by empty_like and written by parts (as packed sequences
  // are reordered): its kernel's output holds whatever its memory held.
  add({"empty_like_filled",
       R"(
def forward(self, x):
    y = torch.empty_like(x)
    y[0] = x[-1]
    y[1:] = x[:-1] * 2.0
    return y + 1.0
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size + 1, 5})};
       }});

  // A helper whose declared result is optional but, once inlined and its
  // tuple taken apart, is a plain tensor (torchaudio's ConvTasNet blocks):
  // the None check folds (passes/fold_none_checks.h).
  add({"optional_result",
       R"(
def block(self, x) -> Tuple[Optional[Tensor], Tensor]:
    return torch.relu(torch.matmul(x, self.w)), x * 2.0

def forward(self, x):
    r, y = self.block(x)
    if r is not None:
        y = y + r
    return y
)",
       {{"w", {4, 4}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 4})};
       }});

  // torch._assert with an f-string message, as torchvision's models check
  // their inputs: the message is built only if the check fails
  // (passes/sink_into_branches.h).
  add({"assert_message",
       R"(
def forward(self, x):
    torch._assert(x.size(1) == 4, "expected 4 features, got {} in {}".format(x.size(1), x.size()))
    return torch.relu(x) * 2.0
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 4})};
       }});

  // A Swin-style window step: pad to whole windows, shift them (roll), a
  // mask made by new_zeros, functional dropout of p = 0 with training left
  // true, as torchvision's Swin calls it (passes/drop_eval_dropout.h), and a
  // list copied.
  add({"shifted_windows",
       R"(
def forward(self, x):
    padded = torch.pad(x, [0, 0, 1, 2, 0, 1], "constant", None)
    shifted = torch.roll(padded, [-1, 2], [1, 2])
    mask = padded.new_zeros([padded.size(1), padded.size(2)])
    sizes = list(padded.size()).copy()
    weights = torch.dropout(torch.softmax(shifted, -1), 0.0, True)
    out = torch.roll(weights * 2.0, 3) + mask.unsqueeze(-1)
    return torch.constant_pad_nd(out, [1, -1], 0.5), sizes
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({2, size + 2, 3, 4})};
       }});

  // isinstance on an Optional and a Union the script refines
  // (prim::isinstance, as torchvision's detection models check their inputs).
  add({"isinstance_refinement",
       R"(
def forward(self, x, n: int):
    y: Optional[Tensor] = None
    if n > 1:
        y = x * 2.0
    z: Union[int, Tensor] = n
    if n > 2:
        z = x
    out = x
    if isinstance(y, Tensor):
        out = out + y
    if isinstance(z, int):
        out = out * float(z)
    return out, isinstance(z, Tensor)
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 3}), c10::IValue(static_cast<int64_t>(size))};
       }});

  add({"if_branch",
       R"(
def forward(self, x):
    if bool(x.sum() > 0):
        y = x.relu() * 2.0
    else:
        y = x.sigmoid() - 1.0
    return y + x
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 3})};
       }});

  add({"loop_input_trip_count",
       R"(
def forward(self, x, n: int):
    for i in range(n):
        x = x * 0.5 + float(i)
    return x
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 4}), c10::IValue(static_cast<int64_t>(size + 2))};
       }});

  // A branch inside a loop body: its values are written again by the next
  // iteration while the views and lists of this one still hold them (the
  // lifetime analysis treats every block inside a loop, not only the
  // body, as a loop body).
  add({"views_in_branch_in_loop",
       R"(
def forward(self, x, n: int):
    acc = x * 0.0
    for i in range(n):
        if bool(x.sum() > -1000000.0):
            a = torch.relu(x + float(i))
            v = a.view(-1)
            c = torch.cat([a, x], 0)
            s = v.sum() + c.sum()
        else:
            s = x.sum()
        acc = acc + s
    return acc
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size + 1, 4}), c10::IValue(static_cast<int64_t>(size + 2))};
       }});

  add({"while_loop",
       R"(
def forward(self, x):
    steps = 0
    while bool(x.abs().max() > 0.1) and steps < 50:
        x = x * 0.5
        steps += 1
    return x, steps
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 2})};
       }});

  // Carried values that trade places: each takes another's previous value
  // (the loop's double buffers must not hand one tensor to two values).
  add({"loop_carried_swap",
       R"(
def forward(self, x, y, n: int):
    a = x * 1.0
    b = y * 1.0
    cur = x + y
    prev = x - y
    k = 0
    s = 0.5
    for i in range(n):
        a, b = b, a
        cur, prev = cur * 0.5 + prev, cur
        k, s = k + 1, s * 2.0
    j = 0
    while j < n:
        p, q = torch.relu(cur), prev
        for t in range(2):
            p, q = q - 1.0, p * 2.0
        cur, prev = q, p
        j += 1
    return a, b, cur, prev, k, s
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 3}), rng.Normal({size, 3}),
                 c10::IValue(static_cast<int64_t>(size % 4 + 1))};
       }});

  // Loops with constant trip counts: over a list literal (results stored in
  // a returned dict), over a list comprehension, a range with carried values,
  // a triangular nest, one that breaks on data (its trip count is constant,
  // its condition is not), one with `continue` and a counted `while`.
  add({"constant_trip_loops",
       R"(
def forward(self, x):
    h = torch.relu(x @ self.w)
    logits = [h[:, 0:2], h[:, 2:4], torch.tanh(h)]
    scores: Dict[str, Tensor] = {}
    for i, logit in enumerate(logits):
        scores[str(i)] = torch.softmax(logit, dim=1)
    scaled = [torch.sigmoid(h * float(k)) for k in range(2)]
    for i, s in enumerate(scaled):
        scores["scaled" + str(i)] = s + scaled[-1]
    acc = x * 1.0
    count = 0
    for i in range(3):
        acc = acc * 0.5 + float(i)
        for j in range(i):
            count += j + 1
    for k in range(4):
        acc = acc + 1.0
        if bool(acc.abs().max() > 3.0):
            break
    for m in range(4):
        if m == 1:
            continue
        acc = acc * 0.75 + float(m)
    n = 0
    while n < 3:
        acc = acc - 0.5
        n += 1
    return logits, scores, acc, count
)",
       {{"w", {4, 4}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 4})};
       }});

  add({"dict_input",
       R"(
def forward(self, features: Dict[str, Tensor]):
    a = features["dense"]
    b = features["extra"]
    return torch.relu(a @ self.w) + b.sum(1, keepdim=True)
)",
       {{"w", {8, 4}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         c10::Dict<std::string, at::Tensor> features;
         features.insert("dense", rng.Normal({size, 8}));
         features.insert("extra", rng.Normal({size, 3}));
         features.insert("unused", rng.Normal({1}));
         return {features};
       }});

  add({"ads_ranking",
       R"(
def forward(self, dense, indices, offsets):
    sparse = torch.embedding_bag(self.table, indices, offsets, False, 0, False, None, False)[0]
    d = torch.relu(torch.linear(dense, self.dense_w, self.dense_b))
    interaction = torch.bmm(torch.stack([d, sparse], 1), torch.stack([d, sparse], 1).transpose(1, 2))
    flat = interaction.flatten(1)
    return torch.sigmoid(torch.linear(torch.cat([d, flat], 1), self.top_w))
)",
       {{"table", {50, 8}}, {"dense_w", {8, 6}}, {"dense_b", {8}}, {"top_w", {1, 12}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         const int64_t batch = 2 * size;
         at::Tensor offsets = at::arange(batch, at::kLong) * 3;
         return {rng.Normal({batch, 6}), rng.Integers(0, 50, {3 * batch}), offsets};
       }});

  add({"to_dtype",
       R"(
def forward(self, x):
    # dtype codes: 7 = float64, 6 = float32 (torch.float64 needs Python).
    d = x.to(7) * 2.0
    f = d.to(6)
    same = x.to(6)
    return f + same, d.to(x)
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 3})};
       }});

  add({"noop_slices",
       R"(
def forward(self, x, xs: List[int]):
    ys = xs[:]
    return x[:] + x[0:], x[:, 1:], len(ys)
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 3}), c10::List<int64_t>({1, 2, size})};
       }});

  add({"containers_out",
       R"(
def forward(self, x, y):
    d: Dict[str, Tensor] = {"sum": x + y, "diff": x - y}
    return (x * y, [x, y.relu()], d)
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 2}), rng.Normal({size, 2})};
       }});

  add({"returns_input_and_constant",
       R"(
def forward(self, x, y):
    return x, 3, y, x
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size}), rng.Normal({2})};
       }});

  add({"returns_input_directly",
       R"(
def forward(self, x):
    return x
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 2})};
       }});

  add({"attention_block",
       R"(
def forward(self, x, mask):
    q = torch.linear(x, self.wq)
    k = torch.linear(x, self.wk)
    v = torch.linear(x, self.wv)
    scores = torch.matmul(q, k.transpose(-2, -1)) / 2.0
    scores = scores.masked_fill(mask, -10000.0)
    attn = torch.softmax(scores, -1)
    h = torch.matmul(attn, v) + x
    return torch.layer_norm(h, [4], self.ln_w, self.ln_b, 1e-5)
)",
       {{"wq", {4, 4}}, {"wk", {4, 4}}, {"wv", {4, 4}}, {"ln_w", {4}}, {"ln_b", {4}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         const int64_t seq = 3 * size;
         at::Tensor mask = rng.Normal({2, seq, seq}) > 1.0;
         return {rng.Normal({2, seq, 4}), mask};
       }});

  // Cross-attention's packed in-projection as nn.MultiheadAttention splits
  // it when the key is the value but not the query: by sizes read from the
  // query (passes/fold_constant_splits.h).
  add({"cross_attention_split",
       R"(
def forward(self, query, memory):
    E = query.size(-1)
    w_q, w_kv = self.w.split([E, E * 2])
    b_q, b_kv = self.b.split([E, E * 2])
    q = torch.linear(query, w_q, b_q)
    k, v = torch.linear(memory, w_kv, b_kv).chunk(2, -1)
    attn = torch.softmax(torch.matmul(q, k.transpose(-2, -1)), -1)
    return torch.matmul(attn, v)
)",
       {{"w", {12, 4}}, {"b", {12}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({2, size, 4}), rng.Normal({2, size + 2, 4})};
       }});

  add({"lstm_cell_loop",
       R"(
def forward(self, xs):
    h = torch.zeros([xs.size(1), 4])
    c = torch.zeros([xs.size(1), 4])
    outputs: List[Tensor] = []
    for t in range(xs.size(0)):
        gates = torch.mm(xs[t], self.w_ih) + torch.mm(h, self.w_hh) + self.bias
        i, f, g, o = gates.chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        outputs.append(h)
    return torch.stack(outputs, 0), (h, c)
)",
       {{"w_ih", {3, 16}}, {"w_hh", {4, 16}}, {"bias", {16}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({2 + size, 2, 3})};
       }});

  // nn.LSTMCell and nn.GRUCell over a fixed number of steps, as a model
  // written with them runs (the loop unrolls).
  add({"rnn_cells",
       R"(
def forward(self, xs):
    h = torch.zeros([xs.size(1), 5])
    c = torch.zeros([xs.size(1), 5])
    g = torch.zeros([xs.size(1), 5])
    outputs: List[Tensor] = []
    for t in range(3):
        h, c = torch.lstm_cell(xs[t], [h, c], self.w_ih, self.w_hh, self.b_ih, self.b_hh)
        g = torch.gru_cell(h, g, self.g_ih, self.g_hh, None, None)
        outputs.append(h + g)
    return torch.stack(outputs, 0), (h, c, g)
)",
       {{"w_ih", {20, 3}},
        {"w_hh", {20, 5}},
        {"b_ih", {20}},
        {"b_hh", {20}},
        {"g_ih", {15, 5}},
        {"g_hh", {15, 5}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({3 + size, size, 3})};
       }});

  add({"if_raises",
       R"(
def forward(self, x):
    assert bool(x.abs().sum() < 1.0e9), "input too large"
    return x.exp()
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 2})};
       }});

  add({"int_and_bool_tensors",
       R"(
def forward(self, x, labels):
    positive = x > 0
    counts = positive.sum(1)
    best = torch.argmax(x, 1)
    masked = x.masked_fill(positive.logical_not(), 0.0)
    return counts + labels, best == labels, masked, positive.any()
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 5}), rng.Integers(0, 5, {size})};
       }});

  add({"scalar_outputs",
       R"(
def forward(self, x):
    n = x.size(0) * 2
    m = float(x.sum()) / 2.0
    return n, m, x.dim() == 2, x.numel()
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 3})};
       }});

  add({"kwargs_defaults",
       R"(
def forward(self, x, scale: float = 2.0, bias: Optional[Tensor] = None):
    y = x * scale
    if bias is not None:
        y = y + bias
    return y
)",
       {},
       // Every argument is passed: the JIT interpreter does not fill defaults.
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 3}), c10::IValue(0.5), rng.Normal({3})};
       }});

  add({"submodule_call",
       R"(
def helper(self, x):
    return torch.tanh(x) * self.scale

def forward(self, x):
    return self.helper(x) + self.helper(x * 2.0)
)",
       {{"scale", {3}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 3})};
       }});

  add({"transformer_encoder",
       R"(
def forward(self, x, padding: Tensor):
    # two heads of width 4 over [batch, seq, 8]; padded keys masked out
    b = x.size(0)
    s = x.size(1)
    qkv = torch.linear(x, self.w_qkv, self.b_qkv)
    q, k, v = qkv.chunk(3, -1)
    q = q.reshape(b, s, 2, 4).transpose(1, 2)
    k = k.reshape(b, s, 2, 4).transpose(1, 2)
    v = v.reshape(b, s, 2, 4).transpose(1, 2)
    scores = torch.matmul(q, k.transpose(-2, -1)) * 0.5
    scores = scores.masked_fill(padding.unsqueeze(1).unsqueeze(2), -1e9)
    attn = torch.matmul(torch.softmax(scores, -1), v).transpose(1, 2).reshape(b, s, 8)
    h = torch.layer_norm(x + torch.linear(attn, self.w_o), [8], self.ln1_w, self.ln1_b, 1e-5)
    ff = torch.linear(torch.gelu(torch.linear(h, self.w_ff1, self.b_ff1)), self.w_ff2)
    return torch.layer_norm(h + ff, [8], self.ln2_w, self.ln2_b, 1e-5)
)",
       {{"w_qkv", {24, 8}},
        {"b_qkv", {24}},
        {"w_o", {8, 8}},
        {"ln1_w", {8}},
        {"ln1_b", {8}},
        {"w_ff1", {16, 8}},
        {"b_ff1", {16}},
        {"w_ff2", {8, 16}},
        {"ln2_w", {8}},
        {"ln2_b", {8}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         const int64_t seq = 2 + 3 * size;
         at::Tensor padding = at::arange(seq).unsqueeze(0).repeat({2, 1}) >= seq - 1;
         return {rng.Normal({2, seq, 8}), padding};
       }});

  add({"transformer_encoder_fast_path",
       R"(
def forward(self, x, padding: Tensor):
    # nn.TransformerEncoderLayer's eval-mode op (batch_first, width 8, 2 heads):
    # relu and norm last, then gelu and norm first with a key padding mask
    h = torch._transformer_encoder_layer_fwd(
        x, 8, 2, self.w_qkv, self.b_qkv, self.w_o, self.b_o, False, False, 1e-5,
        self.ln1_w, self.ln1_b, self.ln2_w, self.ln2_b, self.w_ff1, self.b_ff1, self.w_ff2,
        self.b_o, None, None)
    g = torch._transformer_encoder_layer_fwd(
        h, 8, 2, self.w_qkv, self.b_qkv, self.w_o, self.b_o, True, True, 1e-5,
        self.ln1_w, self.ln1_b, self.ln2_w, self.ln2_b, self.w_ff1, self.b_ff1, self.w_ff2,
        self.b_o, None, None)
    return g, torch._transformer_encoder_layer_fwd(
        h, 8, 2, self.w_qkv, self.b_qkv, self.w_o, self.b_o, True, True, 1e-5,
        self.ln1_w, self.ln1_b, self.ln2_w, self.ln2_b, self.w_ff1, self.b_ff1, self.w_ff2,
        self.b_o, padding, 1)
)",
       EncoderLayerWeights(), [](InputRng& rng, int64_t size) -> Inputs {
         const int64_t seq = 2 + 3 * size;
         at::Tensor padding = at::arange(seq).unsqueeze(0).repeat({2, 1}) >= seq - 1;
         return {rng.Normal({2, seq, 8}), padding};
       }});

  add({"self_attention_fast_path",
       R"(
def forward(self, x, padding: Tensor):
    # nn.MultiheadAttention's eval-mode op (batch_first, width 8, 2 heads,
    # self-attention): without a mask, then with a key padding mask
    a, unused = torch._native_multi_head_attention(
        x, x, x, 8, 2, self.w_qkv, self.b_qkv, self.w_o, self.b_o, None, False, True, None)
    b, weights = torch._native_multi_head_attention(
        a, a, a, 8, 2, self.w_qkv, self.b_qkv, self.w_o, self.b_o, padding, False, True, 1)
    return b, weights
)",
       {{"w_qkv", {24, 8}}, {"b_qkv", {24}}, {"w_o", {8, 8}}, {"b_o", {8}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         const int64_t seq = 2 + 3 * size;
         at::Tensor padding = at::arange(seq).unsqueeze(0).repeat({2, 1}) >= seq - 1 - size;
         return {rng.Normal({2, seq, 8}), padding};
       }});

  add({"transformer_encoder_nested",
       R"(
def forward(self, x, keep: Tensor):
    # nn.TransformerEncoder's fast path with a padding mask: the padded batch
    # as a nested tensor of its sequences, two layers on it, padded back
    aligned = torch._nested_tensor_from_mask_left_aligned(x, keep)
    n = torch._nested_tensor_from_mask(x, keep, False)
    h = torch._transformer_encoder_layer_fwd(
        n, 8, 2, self.w_qkv, self.b_qkv, self.w_o, self.b_o, False, False, 1e-5,
        self.ln1_w, self.ln1_b, self.ln2_w, self.ln2_b, self.w_ff1, self.b_ff1, self.w_ff2,
        self.b_o, None, None)
    g = torch._transformer_encoder_layer_fwd(
        h, 8, 2, self.w_qkv, self.b_qkv, self.w_o, self.b_o, True, True, 1e-5,
        self.ln1_w, self.ln1_b, self.ln2_w, self.ln2_b, self.w_ff1, self.b_ff1, self.w_ff2,
        self.b_o, None, None)
    return g.to_padded_tensor(0.0), aligned
)",
       EncoderLayerWeights(), ThreeSequences});

  add({"encoder_token_readout",
       R"(
def forward(self, x, keep: Tensor, nested: bool):
    # Models that read one token of an encoder's result: a classifier's
    # first token after nn.TransformerEncoder (nested or dense, as its fast
    # path chooses, then a final norm) and a generator's last token
    if nested:
        n = torch._nested_tensor_from_mask(x, keep, False)
        h = torch._transformer_encoder_layer_fwd(
            n, 8, 2, self.w_qkv, self.b_qkv, self.w_o, self.b_o, False, False, 1e-5,
            self.ln1_w, self.ln1_b, self.ln2_w, self.ln2_b, self.w_ff1, self.b_ff1, self.w_ff2,
            self.b_o, None, None)
        g = torch._transformer_encoder_layer_fwd(
            h, 8, 2, self.w_qkv, self.b_qkv, self.w_o, self.b_o, True, True, 1e-5,
            self.ln1_w, self.ln1_b, self.ln2_w, self.ln2_b, self.w_ff1, self.b_ff1, self.w_ff2,
            self.b_o, None, None)
        out = g.to_padded_tensor(0.0)
    else:
        out = torch._transformer_encoder_layer_fwd(
            x, 8, 2, self.w_qkv, self.b_qkv, self.w_o, self.b_o, False, False, 1e-5,
            self.ln1_w, self.ln1_b, self.ln2_w, self.ln2_b, self.w_ff1, self.b_ff1, self.w_ff2,
            self.b_o, torch.logical_not(keep), 1)
    first = torch.layer_norm(out, [8], self.ln1_w, self.ln1_b, 1e-5)[:, 0]
    last = torch._transformer_encoder_layer_fwd(
        x, 8, 2, self.w_qkv, self.b_qkv, self.w_o, self.b_o, True, False, 1e-5,
        self.ln1_w, self.ln1_b, self.ln2_w, self.ln2_b, self.w_ff1, self.b_ff1, self.w_ff2,
        self.b_o, None, None)[:, -1]
    return first, last
)",
       EncoderLayerWeights(), [](InputRng& rng, int64_t size) -> Inputs {
         Inputs inputs = ThreeSequences(rng, size);
         inputs.emplace_back(size % 2 == 1);  // nested on odd sizes
         return inputs;
       }});

  add({"grad_mode_branch",
       R"(
def forward(self, x):
    # A model that branches on the grad mode, as nn.TransformerEncoder's
    # fast-path checks do: the runtime's run and the JIT's see the same one
    if torch.is_grad_enabled():
        return torch.relu(x) + 1.0
    return torch.relu(x) - 1.0
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({2, 1 + size})};
       }});

  add({"quantized_activations",
       R"(
def forward(self, x):
    # A statically quantized model's activations between quantized ops:
    # quantized tensors carry their quantizer, which planned memory lacks
    q = torch.quantize_per_tensor(x, 0.05, 64, 13)
    p = torch.relu(torch.adaptive_avg_pool2d(q, [2, 2]))
    m = torch.max_pool2d(q, [2, 2])
    return torch.dequantize(p).flatten(1), torch.dequantize(m) + x[:, :, :m.size(2), :m.size(3)]
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({1 + size % 2, 3, 4 + 2 * size, 6})};
       }});

  add({"quantized_conv_block",
       R"(
def forward(self, x):
    # A statically quantized block: a packed convolution (freezing folds the
    # packing into a constant), its relu form, a quantized residual add and
    # a packed linear, between quantize and dequantize
    w = torch.quantize_per_tensor(self.w, 0.02, 0, 12)
    conv = ops.quantized.conv2d_prepack(w, self.b, [1, 1], [1, 1], [1, 1], 1)
    fc = ops.quantized.linear_prepack(torch.quantize_per_tensor(self.fc, 0.02, 0, 12), None)
    q = torch.quantize_per_tensor(x, 0.05, 64, 13)
    y = ops.quantized.conv2d_relu(q, conv, 0.1, 10)
    z = ops.quantized.add(ops.quantized.conv2d(y, conv, 0.1, 60), q, 0.1, 64)
    r = ops.quantized.linear(z.flatten(1), fc, 0.2, 64)
    return torch.dequantize(z), torch.dequantize(r)
)",
       {{"w", {3, 3, 3, 3}}, {"b", {3}}, {"fc", {5, 48}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         (void)size;  // the linear takes 3 x 4 x 4 features
         return {rng.Normal({1 + size % 2, 3, 4, 4})};
       }});

  add({"quantized_embedding_bags",
       R"(
def forward(self, indices, offsets, weights, dense):
    # A quantized ads model's pooling: row-wise 8- and 4-bit tables (packed
    # once: freezing folds the packing), per-sample weights, a last offset
    byte_table = ops.quantized.embedding_bag_byte_prepack(self.table)
    nibble_table = ops.quantized.embedding_bag_4bit_prepack(self.table)
    a = ops.quantized.embedding_bag_byte_rowwise_offsets(
        byte_table, indices, offsets, False, 0, False, weights, None, False)
    b = ops.quantized.embedding_bag_4bit_rowwise_offsets(
        nibble_table, indices, offsets, False, 0, False, None, None, True)
    return torch.cat([a[:b.size(0)] * b, dense[:b.size(0)]], 1).relu()
)",
       {{"table", {50, 20}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         const int64_t bags = 3 + 2 * size;
         const at::Tensor lengths = rng.Integers(0, 4, {bags});
         const at::Tensor offsets = at::cat({at::zeros({1}, at::kLong), lengths.cumsum(0)});
         const int64_t num_indices = offsets[-1].item<int64_t>();
         return {rng.Integers(0, 50, {num_indices}), offsets.slice(0, 0, bags),
                 rng.Normal({num_indices}), rng.Normal({bags, 4})};
       }});

  add({"dynamic_quantized_mlp",
       R"(
def forward(self, x):
    # quantize_dynamic's linears: weights quantized and packed once (freezing
    # folds it), inputs quantized per call with their own range (our kernel
    # where oneDNN has VNNI, LibTorch's op elsewhere)
    w1 = torch.quantize_per_tensor(self.w1, 0.01, 0, 12)
    w2 = torch.quantize_per_channel(self.w2, self.w2.abs().amax(1) / 127, torch.zeros([4], dtype=4), 0, 12)
    h = ops.quantized.linear_relu_dynamic(x, ops.quantized.linear_prepack(w1, self.b1), True)
    y = ops.quantized.linear_dynamic(h, ops.quantized.linear_prepack(w2, None), False)
    return torch.tanh(y) + x[:, :, :4]
)",
       {{"w1", {16, 12}}, {"b1", {16}}, {"w2", {4, 16}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({1 + size, 3, 12}) * static_cast<double>(size)};
       }});

  // What torch.jit.trace records for nn.Conv2d, nn.ConvTranspose2d and
  // nn.Conv1d: the internal aten::_convolution, which preparation turns back
  // into the convolution it came from (passes/freeze.h).
  add({"traced_convolutions",
       R"(
def forward(self, x):
    y = torch._convolution(x, self.c1_w, self.c1_b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                           False, False, True, True)
    y = torch.relu(torch.batch_norm(y, self.bn_w, self.bn_b, self.bn_mean, self.bn_var,
                                    False, 0.1, 1e-5, False))
    up = torch._convolution(y, self.t_w, None, [2, 2], [0, 0], [1, 1], True, [0, 0], 1,
                            False, False, True, True)
    seq = torch._convolution(up.flatten(2), self.c3_w, None, [1], [1], [1], False, [0], 1,
                             False, False, True, True)
    return seq
)",
       {{"c1_w", {4, 2, 3, 3}},
        {"c1_b", {4}},
        {"bn_w", {4}},
        {"bn_b", {4}},
        {"bn_mean", {4}},
        {"bn_var", {4}},
        {"t_w", {4, 3, 2, 2}},
        {"c3_w", {5, 3, 3}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 2, 3 + size, 4})};
       }});

  add({"cnn_two_stage",
       R"(
def forward(self, x):
    y = torch.relu(torch.batch_norm(torch.conv2d(x, self.c1_w, None, [1, 1], [1, 1]),
                                    self.bn_w, self.bn_b, self.bn_mean, self.bn_var,
                                    False, 0.1, 1e-5, False))
    y = torch.avg_pool2d(y, [2, 2])
    z = torch.conv2d(y, self.c2_w, self.c2_b, [2, 2], [1, 1])
    shortcut = torch.conv2d(y, self.proj_w, None, [2, 2])
    z = torch.relu(z + shortcut)
    return torch.linear(torch.adaptive_avg_pool2d(z, [1, 1]).flatten(1), self.fc_w, self.fc_b)
)",
       {{"c1_w", {4, 2, 3, 3}},
        {"bn_w", {4}},
        {"bn_b", {4}},
        {"bn_mean", {4}},
        {"bn_var", {4}},
        {"c2_w", {6, 4, 3, 3}},
        {"c2_b", {6}},
        {"proj_w", {6, 4, 1, 1}},
        {"fc_w", {3, 6}},
        {"fc_b", {3}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 2, 4 + 4 * size, 4 + 4 * size})};
       }});

  add({"ads_dict_features",
       R"(
def forward(self, dense: Dict[str, Tensor], ids: Dict[str, Tensor], offsets: Dict[str, Tensor]):
    d = torch.relu(torch.linear(dense["user"], self.w_user))
    user = torch.embedding_bag(self.t_user, ids["user"], offsets["user"], False, 1, False, None, False, 0)[0]
    item = torch.embedding_bag(self.t_item, ids["item"], offsets["item"], False, 0, False, None, True, None)[0]
    x = torch.cat([d, user, item, d * user], 1)
    score = torch.sigmoid(torch.linear(x, self.w_top, self.b_top))
    return {"score": score, "user_embedding": user}
)",
       {{"w_user", {4, 5}},
        {"t_user", {20, 4}},
        {"t_item", {30, 4}},
        {"w_top", {1, 16}},
        {"b_top", {1}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         const int64_t batch = 2 * size;
         c10::Dict<std::string, at::Tensor> dense, ids, offsets;
         dense.insert("user", rng.Normal({batch, 5}));
         ids.insert("user", rng.Integers(0, 20, {3 * batch}));
         offsets.insert("user", at::arange(batch, at::kLong) * 3);
         ids.insert("item", rng.Integers(0, 30, {2 * batch}));
         offsets.insert("item", at::arange(batch + 1, at::kLong) * 2);
         return {dense, ids, offsets};
       }});

  add({"tuple_io",
       R"(
def forward(self, pair: Tuple[Tensor, Tensor], scale: float):
    a, b = pair
    s = a * scale + b
    return (s, [s.sum(0), (a - b).abs().max(1)[0]], (s > 0).sum())
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {c10::ivalue::Tuple::create({rng.Normal({size + 1, 3}), rng.Normal({size + 1, 3})}),
                 0.5 * static_cast<double>(size)};
       }});

  add({"view_of_intermediate_returned",
       R"(
def forward(self, x):
    y = torch.relu(x) * 2.0
    first = y[0]
    columns = y.t()
    return first, columns, y.sum()
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size + 1, 4})};
       }});

  // The convolutional building blocks of torchvision's CNNs, at batch and
  // image sizes that change with `size`: MobileNetV3's inverted residual
  // (depthwise, squeeze-excite with hardswish/hardsigmoid, batch norm to fold).
  add({"cnn_depthwise_se",
       R"(
def forward(self, x):
    y = torch.conv2d(x, self.expand_w, None)
    y = torch.batch_norm(y, self.bn_w, self.bn_b, self.bn_mean, self.bn_var, False, 0.1, 1e-5, False)
    y = torch.hardswish(y)
    y = torch.relu(torch.conv2d(y, self.dw_w, self.dw_b, [1, 1], [1, 1], [1, 1], 8))
    s = torch.adaptive_avg_pool2d(y, [1, 1])
    s = torch.relu(torch.conv2d(s, self.se1_w, self.se1_b))
    s = torch.hardsigmoid(torch.conv2d(s, self.se2_w, self.se2_b))
    y = torch.conv2d(y * s, self.proj_w, self.proj_b) + x
    y = torch.conv2d(y, self.down_w, self.down_b, [2, 2], [2, 2], [1, 1], 4)
    return torch.hardswish(y)
)",
       {{"expand_w", {8, 4, 1, 1}},
        {"bn_w", {8}},
        {"bn_b", {8}},
        {"bn_mean", {8}},
        {"bn_var", {8}},
        {"dw_w", {8, 1, 3, 3}},
        {"dw_b", {8}},
        {"se1_w", {2, 8, 1, 1}},
        {"se1_b", {2}},
        {"se2_w", {8, 2, 1, 1}},
        {"se2_b", {8}},
        {"proj_w", {4, 8, 1, 1}},
        {"proj_b", {4}},
        {"down_w", {4, 1, 5, 5}},
        {"down_b", {4}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 4, 5 + 6 * size, 7 + 4 * size})};
       }});

  // SqueezeNet's fire module between ceil-mode max pools (odd image sizes).
  add({"cnn_fire_ceil_maxpool",
       R"(
def forward(self, x):
    y = torch.relu(torch.conv2d(x, self.stem_w, self.stem_b, [2, 2]))
    y = torch.max_pool2d(y, [3, 3], [2, 2], [0, 0], [1, 1], True)
    s = torch.relu(torch.conv2d(y, self.squeeze_w, self.squeeze_b))
    e1 = torch.relu(torch.conv2d(s, self.e1_w, self.e1_b))
    e3 = torch.relu(torch.conv2d(s, self.e3_w, self.e3_b, [1, 1], [1, 1]))
    y = torch.max_pool2d(torch.cat([e1, e3], 1), [3, 3], [2, 2], [0, 0], [1, 1], True)
    y = torch.relu(torch.conv2d(y, self.cls_w, self.cls_b))
    return torch.flatten(torch.adaptive_avg_pool2d(y, [1, 1]), 1)
)",
       {{"stem_w", {8, 3, 3, 3}},
        {"stem_b", {8}},
        {"squeeze_w", {4, 8, 1, 1}},
        {"squeeze_b", {4}},
        {"e1_w", {6, 4, 1, 1}},
        {"e1_b", {6}},
        {"e3_w", {6, 4, 3, 3}},
        {"e3_b", {6}},
        {"cls_w", {5, 12, 1, 1}},
        {"cls_b", {5}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 3, 1 + 16 * size, 3 + 14 * size})};
       }});

  // ShuffleNetV2's unit: channel split, a depthwise branch, concatenation and
  // the channel shuffle (view, transpose, contiguous, view).
  add({"cnn_channel_shuffle",
       R"(
def forward(self, x):
    y = torch.relu(torch.conv2d(x, self.stem_w, None, [1, 1], [1, 1]))
    a, b = y.chunk(2, 1)
    b = torch.relu(torch.conv2d(b, self.pw1_w, self.pw1_b))
    b = torch.conv2d(b, self.dw_w, self.dw_b, [1, 1], [1, 1], [1, 1], 4)
    b = torch.relu(torch.conv2d(b, self.pw2_w, self.pw2_b))
    y = torch.cat([a, b], 1)
    n, c, h, w = y.size()
    y = y.view(n, 2, c // 2, h, w).transpose(1, 2).contiguous().view(n, c, h, w)
    return torch.conv2d(y, self.head_w, self.head_b, [2, 2])
)",
       {{"stem_w", {8, 3, 3, 3}},
        {"pw1_w", {4, 4, 1, 1}},
        {"pw1_b", {4}},
        {"dw_w", {4, 1, 3, 3}},
        {"dw_b", {4}},
        {"pw2_w", {4, 4, 1, 1}},
        {"pw2_b", {4}},
        {"head_w", {6, 8, 3, 3}},
        {"head_b", {6}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 3, 4 + 5 * size, 4 + 5 * size})};
       }});

  // Grouped and dilated convolutions, asymmetric stride, padding and kernel,
  // padding="same", relu6 and sigmoid, a ceil-mode average pool.
  add({"cnn_grouped_dilated",
       R"(
def forward(self, x):
    y = torch.hardtanh(torch.conv2d(x, self.g_w, self.g_b, [1, 1], [2, 2], [2, 2], 2), 0.0, 6.0)
    y = torch.sigmoid(torch.conv2d(y, self.s_w, None, [2, 1], [0, 1], [1, 1], 1))
    y = torch.conv2d(y, self.same_w, None, [1, 1], "same", [1, 2]) + y
    return torch.avg_pool2d(y, [2, 2], [2, 2], [0, 0], True, False)
)",
       {{"g_w", {6, 2, 3, 3}}, {"g_b", {6}}, {"s_w", {5, 6, 1, 3}}, {"same_w", {5, 5, 3, 3}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 4, 3 + 6 * size, 2 + 5 * size})};
       }});

  // Instance norms (nn.InstanceNorm2d and 1d without running statistics, as
  // style-transfer, optical-flow and audio networks use them): affine after
  // a convolution, and plain over a flattened signal.
  add({"instance_norms",
       R"(
def forward(self, x):
    y = torch.conv2d(x, self.c_w, None, [1, 1], [1, 1])
    y = torch.instance_norm(y, self.n_w, self.n_b, None, None, True, 0.1, 1e-05, True)
    z = torch.instance_norm(x.flatten(2), None, None, None, None, True, 0.1, 1e-05, True)
    return torch.relu(y), z
)",
       {{"c_w", {4, 3, 3, 3}}, {"n_w", {4}}, {"n_b", {4}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 3, 2 + 3 * size, 3 + 4 * size})};
       }});

  // Temporal convolutions: dilated, strided and grouped conv1d, batched and
  // on one unbatched sequence.
  add({"conv1d_temporal",
       R"(
def forward(self, x):
    y = torch.relu(torch.conv1d(x, self.c1_w, self.c1_b, [1], [2], [2]))
    y = torch.conv1d(y, self.c2_w, None, [2], [1], [1], 2)
    single = torch.conv1d(x[0], self.c1_w, self.c1_b, [1], [2], [2])
    return torch.max(y, 2)[0], single.sum(1)
)",
       {{"c1_w", {6, 4, 3}}, {"c1_b", {6}}, {"c2_w", {6, 3, 3}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 4, 9 + 6 * size})};
       }});
  // A video block: 3D convolutions (a factored (2+1)D pair with "same"
  // padding, a strided one), batch norm, a residual, the global 3D pool.
  add({"video_conv3d_block",
       R"(
def forward(self, x):
    y = torch.conv3d(x, self.s_w, None, [1, 1, 1], "same")
    y = torch.batch_norm(y, self.bn_w, self.bn_b, self.bn_mean, self.bn_var, False, 0.1, 1e-5, False)
    y = torch.relu(y)
    y = torch.relu(torch.conv3d(y, self.t_w, self.t_b, [1, 1, 1], [1, 0, 0]) + x)
    z = torch.conv3d(y, self.d_w, None, [2, 2, 2], [1, 1, 1])
    return torch.flatten(torch.adaptive_avg_pool3d(z, [1, 1, 1]), 1), torch.adaptive_avg_pool3d(y, [1, 2, 2])
)",
       {{"s_w", {6, 4, 1, 3, 3}},
        {"bn_w", {6}},
        {"bn_b", {6}},
        {"bn_mean", {6}},
        {"bn_var", {6}},
        {"t_w", {4, 6, 3, 1, 1}},
        {"t_b", {4}},
        {"d_w", {8, 4, 3, 3, 3}}},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size, 4, 2 + size, 3 + 2 * size, 3 + 2 * size})};
       }});
  // Loop-carried values that alias what the iteration before yielded: a
  // view of the last yield, the last yield itself, and a value written in
  // place after it was carried (trip count from the input: not unrolled).
  add({"loop_carried_aliases",
       R"(
def forward(self, x):
    a = x + 1.0
    b = a * 2.0
    c = torch.relu(x)
    for _ in range(x.size(0)):
        d = torch.tanh(a) + b
        a, b = b, d.view(d.size())
        c = c.add_(0.5) * b
        e = c.transpose(0, 1)
        c = e.transpose(0, 1)
    return a, b, c
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size + 1, 3})};
       }});
  // Graphs that read strides, or contiguity, next to views the copy variants
  // would turn into copies (a permuted copy is contiguous, the view is not):
  // the runtime must answer as the views do.
  add({"strides_next_to_copies",
       R"(
def forward(self, x):
    a = x * 2.0
    y = a.permute(1, 0)
    z = y.reshape(-1)
    v = a.reshape(-1, 2)
    s = y.stride(0)
    return z * float(s), v + 1.0, v.stride(0) + s
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size + 1, 4})};
       }});
  add({"contiguity_next_to_copies",
       R"(
def forward(self, x):
    y = x.permute(1, 0)
    w = y.flatten()
    n = y.is_contiguous()
    if n:
        out = w * 2.0
    else:
        out = w + 1.0
    return out, w.sum() + float(w.is_contiguous()), x.t().is_contiguous()
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size + 1, 4})};
       }});

  // Each op that copy variants rewrite (permute, flatten, reshape,
  // reshape_as) returns a strided view here, read only through
  // is_contiguous() (and a sum, which keeps the base a view): copies would
  // be contiguous. The next model reads stride() instead.
  add({"contiguity_read_next_to_each_copy_variant",
       R"(
def forward(self, x):
    q = (x * 2.0).view(-1, 2, 2).permute(2, 0, 1)
    p = (x + 1.0).permute(1, 0)
    f = q.flatten(1, 2)
    r = q.reshape(2, -1)
    s = q.reshape_as(f)
    return q.sum(), p.is_contiguous(), f.is_contiguous(), r.is_contiguous(), s.is_contiguous()
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size + 1, 4})};
       }});
  add({"strides_read_next_to_each_copy_variant",
       R"(
def forward(self, x):
    q = (x * 2.0).view(-1, 2, 2).permute(2, 0, 1)
    p = (x + 1.0).permute(1, 0)
    f = q.flatten(1, 2)
    r = q.reshape(2, -1)
    s = q.reshape_as(f)
    return q.sum(), p.stride(0), f.stride(1), r.stride(1), s.stride(1)
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({size + 1, 4})};
       }});

  // dropout when not training and type_as to the same type return their
  // input itself, though their schemas promise fresh results: the softmax
  // must not be recycled while the product reads it through the dropout
  // (torchvision's swin_t).
  add({"ops_returning_their_input",
       R"(
def forward(self, x, v, training: bool):
    a = torch.softmax(x, -1)
    d = torch.dropout(a, 0.1, training)
    b = torch.relu(v)
    out = torch.matmul(d, b)
    e = torch.sigmoid(v)
    t = e.type_as(x)
    return out + 1.0, t * 2.0
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({2, 3 * size, 5}), rng.Normal({2, 5, 4}), false};
       }});

  // nn.MultiheadAttention(batch_first=True) on (x, m, m): `value = key` after
  // the transposes makes one object the If's two results, and `key is value`
  // picks the packed key-value projection (nn.Transformer's decoder).
  add({"identity_through_if",
       R"(
def forward(self, x, m):
    if x.dim() == 3:
        l: List[Tensor] = []
        for t in (x, m):
            l.append(t.transpose(1, 0))
        q, k = l
        v = k
    else:
        q, k, v = x, m, m
    if k is v:
        return q + 1.0, k * 2.0
    return q - 1.0, v * 3.0
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({2, size + 2, 4}), rng.Normal({2, 3, 4})};
       }});

  // The checks nn.MultiheadAttention makes before its fast path (its
  // f-strings are aten::format): a reason formatted from constants
  // (batch_first is False), a reason one branch leaves empty, `query is key`
  // through a branch that makes them one tensor in one branch only, and a
  // mask that is None in one branch (passes/fold_string_checks.h,
  // passes/fold_none_checks.h).
  add({"fast_path_checks",
       R"(
def forward(self, x):
    batch_first = False
    name = "self.layers[0]"
    why_not = ""
    if x.dim() != 3:
        why_not = "input not batched; expected 3 dims, got {}".format(x.dim())
    elif not batch_first:
        why_not = "{}.self_attn.batch_first was not True".format(name)
    y = torch.relu(x) + 1.0
    if not why_not:
        y = x * 2.0
    long_reason = ""
    if x.size(1) > 2:
        long_reason = "longer than 2"
    if not long_reason:
        y = y - 1.0
    q, k = x, x
    mask: Optional[Tensor] = None
    if x.size(1) > 3:
        k = -x
        mask = x > 0.5
    if q is k:
        y = y * 3.0
    if mask is not None:
        y = y.masked_fill(mask, 0.0)
    return y
)",
       {},
       [](InputRng& rng, int64_t size) -> Inputs {
         return {rng.Normal({2, size + 1, 4})};
       }});

  return models;
}

}  // namespace

const std::vector<Model>& Models() {
  static const auto* const kModels = new std::vector<Model>(MakeModels());
  return *kModels;
}

const Model& ModelNamed(const std::string& name) {
  for (const Model& model : Models()) {
    if (model.name == name) return model;
  }
  TORCH_CHECK(false, "no corpus model named ", name);
}

absl::StatusOr<torch::jit::Module> Build(const Model& model) {
  InputRng rng(/*seed=*/0);
  std::vector<NamedTensor> parameters;
  for (const auto& [name, shape] : model.parameters) {
    at::Tensor value = rng.Normal(shape) * 0.5;
    // Variances must be positive.
    if (absl::EndsWith(name, "_var")) value = value.abs() + 0.5;
    parameters.emplace_back(name, value);
  }
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(model.source, parameters);
  if (!module.ok()) {
    return absl::Status(module.status().code(), absl::StrCat("corpus model '", model.name,
                                                             "': ", module.status().message()));
  }
  return module;
}

}  // namespace corpus
}  // namespace static_runtime
