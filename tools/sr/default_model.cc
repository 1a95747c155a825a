#include "tools/sr/default_model.h"

#include "ATen/ATen.h"
#include "load/load.h"

namespace static_runtime {
namespace sr {

const char kDefaultInputSpec[] =
    "f32[64,32];i64[256]{0..999};i64[64]{0..0};i64[256]{0..999};i64[64]{0..0};"
    "i64[256]{0..999};i64[64]{0..0}";

namespace {

constexpr char kSource[] = R"(
def pool(self, table: Tensor, ids: Tensor, offsets: Tensor):
    # offsets arrive as zeros; bags of 4 ids each
    starts = torch.arange(offsets.size(0)) * 4
    return torch.embedding_bag(table, ids, starts, False, 1, False, None, False)[0]

def forward(self, dense, ids0, offsets0, ids1, offsets1, ids2, offsets2):
    d = torch.relu(torch.linear(dense, self.bottom_w1, self.bottom_b1))
    d = torch.relu(torch.linear(d, self.bottom_w2, self.bottom_b2))
    s0 = self.pool(self.table0, ids0, offsets0)
    s1 = self.pool(self.table1, ids1, offsets1)
    s2 = self.pool(self.table2, ids2, offsets2)
    features = torch.stack([d, s0, s1, s2], 1)
    interaction = torch.bmm(features, features.transpose(1, 2)).flatten(1)
    top = torch.cat([d, interaction], 1)
    top = torch.relu(torch.linear(top, self.top_w1, self.top_b1))
    return torch.sigmoid(torch.linear(top, self.top_w2, self.top_b2))
)";

}  // namespace

absl::StatusOr<torch::jit::Module> DefaultModel() {
  at::manual_seed(0);
  auto p = [](std::initializer_list<int64_t> shape) { return at::randn(shape) * 0.1; };
  return ModuleFromSource(kSource, {{"bottom_w1", p({64, 32})},
                                    {"bottom_b1", p({64})},
                                    {"bottom_w2", p({16, 64})},
                                    {"bottom_b2", p({16})},
                                    {"table0", p({1000, 16})},
                                    {"table1", p({1000, 16})},
                                    {"table2", p({1000, 16})},
                                    {"top_w1", p({32, 32})},
                                    {"top_b1", p({32})},
                                    {"top_w2", p({1, 32})},
                                    {"top_b2", p({1})}});
}

const char kOpDenseInputSpec[] = "f32[8,16];f32[8,16]";

absl::StatusOr<torch::jit::Module> OpDenseModel() {
  // Five unrolled rounds of 13 ops: 65 nodes on 8x16 tensors.
  std::string body;
  for (int round = 0; round < 5; ++round) {
    body += R"(
    a = torch.relu(x + y)
    b = torch.sigmoid(a * 0.5)
    c = torch.tanh(b - x)
    d = torch.softmax(c, 1)
    e = d * y + a
    f = torch.clamp(e, -1.0, 1.0)
    g = f.sum(1, keepdim=True) + f
    x = g / 2.0)";
  }
  return ModuleFromSource("\ndef forward(self, x, y):" + body + "\n    return x\n");
}

}  // namespace sr
}  // namespace static_runtime
