// The quantized embedding-bag kernels against LibTorch's own ops, bit for
// bit: random packed tables (arbitrary bytes and scales), bags of every
// length, int and long indices and offsets, per-sample weights,
// include_last_offset, 2-D indices, both bit widths, the row-wise ops and the
// packed-parameters ops; and the inputs ATen's op is left to (its result or
// its error).
#include <cstring>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/core/dispatch/Dispatcher.h"
#include "gtest/gtest.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/core/registry.h"
#include "ops/kernels.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace {

using testing::Difference;
using testing::Draw;

// LibTorch's op `name` on `inputs` (its first output), or its error as an
// exception.
c10::IValue Aten(const std::string& name, const std::vector<c10::IValue>& inputs) {
  const c10::OperatorHandle op = c10::Dispatcher::singleton().findSchemaOrThrow(name.c_str(), "");
  torch::jit::Stack stack(inputs.begin(), inputs.end());
  op.callBoxed(&stack);
  return stack[0];
}

// Our out-variant kernel of `name` on `inputs`, into `slots`: "" or the error.
std::string RunKernel(const std::string& name, const std::vector<c10::IValue>& inputs,
                      testing::Slots& slots) {
  testing::SingleNode single = testing::MakeNode(name, "", inputs, 1);
  const std::optional<KernelRegistry::Selected> selected =
      GlobalKernels().Find(single.node, /*allow_out_variants=*/true);
  if (!selected || selected->kind != NodeKind::kOutVariant) return "no out variant for " + name;
  return slots.Run(selected->kernel, inputs);
}

// A packed table of `rows` rows of `dim` values: random bytes, and scales
// and biases of any magnitude (8-bit: float32; 4-bit: float16).
at::Tensor DrawTable(Draw& d, int64_t rows, int64_t dim, int bits) {
  const int64_t value_bytes = bits == 8 ? dim : dim / 2;
  const int64_t row_bytes = value_bytes + (bits == 8 ? 8 : 4);
  at::Tensor table = at::randint(0, 256, {rows, row_bytes}, at::kByte);
  for (int64_t r = 0; r < rows; ++r) {
    uint8_t* tail = table.data_ptr<uint8_t>() + r * row_bytes + value_bytes;
    const float magnitude = std::pow(10.0f, static_cast<float>(d.Int(-4, 4)));
    const float scale = magnitude * static_cast<float>(d.Int(1, 1000)) / 997.0f;
    const float bias = -magnitude * static_cast<float>(d.Int(-1000, 1000)) / 991.0f;
    if (bits == 8) {
      std::memcpy(tail, &scale, 4);
      std::memcpy(tail + 4, &bias, 4);
    } else {
      const c10::Half half_scale(scale), half_bias(bias);
      std::memcpy(tail, &half_scale, 2);
      std::memcpy(tail + 2, &half_bias, 2);
    }
  }
  return table;
}

struct Bags {
  at::Tensor indices;
  c10::optional<at::Tensor> offsets;
  c10::optional<at::Tensor> per_sample_weights;
  bool include_last_offset = false;
};

Bags DrawBags(Draw& d, int64_t rows) {
  Bags bags;
  const at::ScalarType index_type = d.Bool() ? at::kLong : at::kInt;
  if (d.Int(0, 5) == 0) {  // fixed-length bags: 2-D indices, no offsets
    bags.indices = d.Indices({d.Int(1, 5), d.Int(1, 6)}, 0, rows).to(index_type);
  } else {
    // At least one bag: ATen's op reads the first offset even when there is
    // none (our kernel gives no bags then: EmptyOffsetsGiveNoBags).
    std::vector<int64_t> offsets = {0};
    const int64_t num_bags = d.Int(1, 8);
    for (int64_t b = 1; b < num_bags; ++b) offsets.push_back(offsets.back() + d.Int(0, 6));
    const int64_t num_indices = offsets.back() + d.Int(0, 6);
    bags.include_last_offset = d.Bool();
    if (bags.include_last_offset) offsets.push_back(num_indices);
    bags.indices = d.Indices({num_indices}, 0, rows).to(index_type);
    bags.offsets = at::tensor(offsets, at::kLong).to(d.Bool() ? at::kLong : at::kInt);
  }
  if (d.Bool()) bags.per_sample_weights = at::randn({bags.indices.numel()});
  return bags;
}

std::vector<c10::IValue> Inputs(const c10::IValue& table, const Bags& b) {
  return {table,
          b.indices,
          b.offsets,
          false,
          int64_t{0},
          false,
          b.per_sample_weights,
          c10::IValue(),
          b.include_last_offset};
}

// One bag per offset of `offsets` over `indices`, summed, no weights.
std::vector<c10::IValue> PlainBags(const c10::IValue& table, const at::Tensor& indices,
                                   const at::Tensor& offsets) {
  return {table, indices, offsets, false, int64_t{0}, false, c10::IValue(), c10::IValue(), false};
}

// Our kernel equals ATen's op on `inputs`, twice (the second into the
// output of the first).
void CheckAgainstAten(const std::string& name, const std::vector<c10::IValue>& inputs) {
  const c10::IValue expected = Aten(name, inputs);
  testing::Slots slots(1);
  for (int call = 0; call < 2; ++call) {
    RC_ASSERT(RunKernel(name, inputs, slots) == "");
    RC_ASSERT(Difference(expected, slots.Output(0)) == "");
  }
}

RC_GTEST_PROP(QuantizedEmbeddingBag, RowwiseOffsetsEqualAten, ()) {
  Draw d;
  const int bits = d.Bool() ? 8 : 4;
  const int64_t rows = d.Int(1, 40);
  const int64_t dim = 2 * d.Int(1, 40);  // across the 16-wide loop and its tail
  const at::Tensor table = DrawTable(d, rows, dim, bits);
  const Bags bags = DrawBags(d, rows);
  RC_LOG() << bits << "-bit table " << table.sizes() << ", indices " << bags.indices.sizes()
           << (bags.offsets ? " with offsets" : "") << "\n";
  CheckAgainstAten(bits == 8 ? "quantized::embedding_bag_byte_rowwise_offsets"
                             : "quantized::embedding_bag_4bit_rowwise_offsets",
                   Inputs(table, bags));
}

RC_GTEST_PROP(QuantizedEmbeddingBag, PackedParametersEqualAten, ()) {
  Draw d;
  const int bits = d.Bool() ? 8 : 4;
  const int64_t rows = d.Int(1, 30);
  const int64_t dim = 2 * d.Int(1, 24);
  // As torch.ao.nn.quantized.EmbeddingBag packs its weight.
  const at::Tensor weight = at::randn({rows, dim});
  const at::Tensor scales = weight.abs().amax(1).clamp_min(1e-3) / (bits == 8 ? 127.0 : 7.0);
  const at::Tensor zero_points = at::zeros({rows});
  const at::Tensor quantized = at::quantize_per_channel(weight, scales, zero_points, 0,
                                                        bits == 8 ? at::kQUInt8 : at::kQUInt4x2);
  const c10::IValue params = Aten("quantized::embedding_bag_prepack", {quantized});
  const Bags bags = DrawBags(d, rows);
  CheckAgainstAten(bits == 8 ? "quantized::embedding_bag_byte" : "quantized::embedding_bag_4bit",
                   Inputs(params, bags));
}

// ATen sums in double and then rounds to float: a sum that lands on a float
// tie only in double rounds to even, where one rounding would round up.
TEST(QuantizedEmbeddingBag, RoundsTwiceAsAten) {
  const float big_scale = 1073741824.0f;  // 2^30: the first row's value 1
  const float tie_scale = 1.0847458f;     // times 59: 64 + 2^-23 over 2^30
  at::Tensor table = at::zeros({2, 9}, at::kByte);
  table[0][0] = 1;
  table[1][0] = 59;
  std::memcpy(table.data_ptr<uint8_t>() + 1, &big_scale, 4);
  std::memcpy(table.data_ptr<uint8_t>() + 10, &tie_scale, 4);
  const std::vector<c10::IValue> inputs =
      PlainBags(table, at::tensor({0, 1}, at::kLong), at::tensor({0}, at::kLong));
  testing::Slots slots(1);
  ASSERT_EQ(RunKernel("quantized::embedding_bag_byte_rowwise_offsets", inputs, slots), "");
  EXPECT_EQ(slots.Output(0).toTensor().item<float>(), big_scale);
  EXPECT_EQ(
      Difference(Aten("quantized::embedding_bag_byte_rowwise_offsets", inputs), slots.Output(0)),
      "");
}

TEST(QuantizedEmbeddingBag, EmptyOffsetsGiveNoBags) {
  const std::vector<c10::IValue> inputs =
      PlainBags(Aten("quantized::embedding_bag_byte_prepack", {at::randn({3, 4})}),
                at::zeros({0}, at::kLong), at::zeros({0}, at::kLong));
  testing::Slots slots(1);
  ASSERT_EQ(RunKernel("quantized::embedding_bag_byte_rowwise_offsets", inputs, slots), "");
  EXPECT_EQ(slots.Output(0).toTensor().sizes(), at::IntArrayRef({0, 4}));
}

// Inputs the kernel leaves to ATen's op: the same result, or an error.
TEST(QuantizedEmbeddingBag, UnusualInputsRunAtensOp) {
  const c10::IValue table = Aten("quantized::embedding_bag_byte_prepack", {at::randn({5, 8})});
  const std::string name = "quantized::embedding_bag_byte_rowwise_offsets";
  auto inputs = [&](const at::Tensor& indices, const at::Tensor& offsets) {
    return PlainBags(table, indices, offsets);
  };
  // Offsets that do not start at 0: ATen starts the first bag at index 0.
  const std::vector<c10::IValue> shifted =
      inputs(at::tensor({1, 2, 3}, at::kLong), at::tensor({1, 2}, at::kLong));
  testing::Slots slots(1);
  ASSERT_EQ(RunKernel(name, shifted, slots), "");
  EXPECT_EQ(Difference(Aten(name, shifted), slots.Output(0)), "");
  // An index past the table: ATen's error.
  const std::string error =
      RunKernel(name, inputs(at::tensor({0, 5}, at::kLong), at::tensor({0}, at::kLong)), slots);
  EXPECT_NE(error.find("Invalid indices data"), std::string::npos) << error;
  // The kernel still works afterwards.
  ASSERT_EQ(RunKernel(name, shifted, slots), "");
}

}  // namespace
}  // namespace static_runtime
