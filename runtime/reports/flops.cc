#include "runtime/reports/flops.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/NestedTensorImpl.h"
#include "absl/container/flat_hash_set.h"
#include "ir/operators/operators.h"
#include "oneapi/dnnl/dnnl.h"

namespace static_runtime {
namespace reports {
namespace {

// The input holding the reduced dimension: the weight of a convolution or
// linear ([out, in/groups, kernel...] or [out, in]), the left operand of a
// product (its last dimension).
enum class Work {
  kNone,
  kConvolution,
  kLinear,
  kProduct,
  kAddProduct,
  kAttention,        // _native_multi_head_attention's arguments
  kEncoderLayer,     // _transformer_encoder_layer_fwd's
  kEncoderLayerRow,  // transformer_encoder_layer_row's: the layer's, then the row
};

Work WorkOf(const std::string& kind) {
  static const auto* const kConvolutions = new absl::flat_hash_set<std::string>{
      "aten::conv1d",       "aten::conv2d",      "aten::conv3d",
      "aten::_convolution", "aten::convolution", "static_runtime::conv2d_fused"};
  static const auto* const kLinears =
      new absl::flat_hash_set<std::string>{"aten::linear", "static_runtime::linear_fused"};
  static const auto* const kProducts =
      new absl::flat_hash_set<std::string>{"aten::mm", "aten::bmm", "aten::matmul"};
  static const auto* const kAddProducts =
      new absl::flat_hash_set<std::string>{"aten::addmm", "aten::baddbmm"};
  static const auto* const kAttentions = new absl::flat_hash_set<std::string>{
      "aten::_native_multi_head_attention", "static_runtime::multi_head_attention"};
  static const auto* const kEncoderLayers = new absl::flat_hash_set<std::string>{
      "aten::_transformer_encoder_layer_fwd", "static_runtime::transformer_encoder_layer"};
  if (kAttentions->contains(kind)) return Work::kAttention;
  if (kEncoderLayers->contains(kind)) return Work::kEncoderLayer;
  if (kind == "static_runtime::transformer_encoder_layer_row") return Work::kEncoderLayerRow;
  if (kConvolutions->contains(kind)) return Work::kConvolution;
  if (kLinears->contains(kind)) return Work::kLinear;
  if (kProducts->contains(kind)) return Work::kProduct;
  if (kAddProducts->contains(kind)) return Work::kAddProduct;
  return Work::kNone;
}

const at::Tensor* TensorAt(const NodeIO& io, bool output, size_t i) {
  if (output ? i >= io.num_outputs() : i >= io.num_inputs()) return nullptr;
  const c10::IValue& value = output ? io.Output(i) : io.Input(i);
  if (!value.isTensor() || !value.toTensor().defined()) return nullptr;
  return &value.toTensor();
}

// The token count of each sequence of a [B, T, D] source (B of T) or of a
// nested one (each component's length); empty when it is neither.
std::vector<int64_t> SequenceLengths(const at::Tensor& source) {
  if (source.is_nested()) {
    const at::Tensor& sizes = at::native::get_nested_size_tensor(source);
    if (sizes.dim() != 2 || sizes.size(1) != 2) return {};
    const at::Tensor lengths = sizes.select(1, 0).contiguous();
    return {lengths.data_ptr<int64_t>(), lengths.data_ptr<int64_t>() + lengths.numel()};
  }
  if (source.dim() != 3) return {};
  return std::vector<int64_t>(source.size(0), source.size(1));
}

// Self-attention of width `width` over sequences of `lengths` tokens: the
// q, k, v and output projections (4 D^2 multiply-adds a token) and each
// sequence's scores and weighted sum (2 n^2 D); with `feed_forward` > 0,
// the encoder layer's two feed-forward linears (2 D F a token). With
// `row`, one query token per sequence (transformer_encoder_layer_row's):
// the q, k, v projection of every token, the rest for that token alone.
double AttentionFlops(const std::vector<int64_t>& lengths, int64_t width, int64_t feed_forward,
                      std::optional<int64_t> row = std::nullopt) {
  double multiply_adds = 0;
  const double d = static_cast<double>(width), f = static_cast<double>(feed_forward);
  const int64_t longest = lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
  for (int64_t length : lengths) {
    const double n = static_cast<double>(length);
    if (!row) {
      multiply_adds += n * (4 * d * d + 2 * d * f) + 2 * n * n * d;
      continue;
    }
    const int64_t token = ops::SequenceToken(*row, longest);
    multiply_adds += 3 * n * d * d;
    if (token >= 0 && token < length) multiply_adds += d * d + 2 * d * f + 2 * n * d;
  }
  return 2 * multiply_adds;
}

}  // namespace

double NodeFlops(const torch::jit::Node& node, const NodeIO& io) {
  const Work work = WorkOf(node.kind().toQualString());
  if (work == Work::kNone) return 0;
  if (work == Work::kAttention || work == Work::kEncoderLayer || work == Work::kEncoderLayerRow) {
    const at::Tensor* source = TensorAt(io, /*output=*/false, 0);
    const size_t width_input = work == Work::kAttention ? 3 : 1;
    if (source == nullptr || width_input >= io.num_inputs() || !io.Input(width_input).isInt()) {
      return 0;
    }
    int64_t feed_forward = 0;
    std::optional<int64_t> row;
    if (work == Work::kEncoderLayerRow) {
      if (io.num_inputs() <= 20 || !io.Input(20).isInt()) return 0;
      row = io.Input(20).toInt();
    }
    if (work != Work::kAttention) {
      const at::Tensor* ffn_weight = TensorAt(io, /*output=*/false, 14);  // [F, D]
      if (ffn_weight == nullptr || ffn_weight->dim() != 2) return 0;
      feed_forward = ffn_weight->size(0);
    }
    return AttentionFlops(SequenceLengths(*source), io.Input(width_input).toInt(), feed_forward,
                          row);
  }
  const at::Tensor* out = TensorAt(io, /*output=*/true, 0);
  const size_t reduced_input = work == Work::kAddProduct ? 1 : work == Work::kProduct ? 0 : 1;
  const at::Tensor* reduced = TensorAt(io, /*output=*/false, reduced_input);
  if (out == nullptr || reduced == nullptr || reduced->dim() == 0) return 0;
  int64_t per_output = 0;  // multiply-adds per output element
  if (work == Work::kConvolution) {
    if (reduced->dim() < 2 || reduced->size(0) == 0) return 0;
    per_output = reduced->numel() / reduced->size(0);
  } else if (work == Work::kLinear) {
    per_output = reduced->size(-1);
  } else {
    per_output = reduced->size(-1);
  }
  return 2.0 * static_cast<double>(out->numel()) * static_cast<double>(per_output);
}

namespace {
constexpr int64_t kPeakSize = 512;
constexpr double kPeakFlops = 2.0 * kPeakSize * kPeakSize * kPeakSize;
}  // namespace

PeakProductMeter::PeakProductMeter()
    : a_(at::rand({kPeakSize, kPeakSize})),
      b_(at::rand({kPeakSize, kPeakSize})),
      c_(at::empty({kPeakSize, kPeakSize})) {
  // A warm-up call of each, not counted.
  Call(Kernel::kAten);
  Call(Kernel::kOneDnn);
}

double PeakProductMeter::Call(Kernel kernel) {
  const auto start = std::chrono::steady_clock::now();
  if (kernel == Kernel::kAten) {
    at::mm_out(c_, a_, b_);
  } else {
    // Row-major C = A B is column-major C^T = B^T A^T.
    dnnl_sgemm('N', 'N', kPeakSize, kPeakSize, kPeakSize, 1.0f, b_.data_ptr<float>(), kPeakSize,
               a_.data_ptr<float>(), kPeakSize, 0.0f, c_.data_ptr<float>(), kPeakSize);
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  return took.count();
}

void PeakProductMeter::Sample() {
  for (Kernel kernel : {Kernel::kAten, Kernel::kOneDnn}) {
    Timing& timing = timings_[static_cast<int>(kernel)];
    const double seconds = Call(kernel);
    timing.total_seconds += seconds;
    timing.best_seconds = std::min(timing.best_seconds, seconds);
    ++timing.calls;
  }
}

PeakProduct PeakProductMeter::Result() const {
  PeakProduct best;
  for (Kernel kernel : {Kernel::kAten, Kernel::kOneDnn}) {
    const Timing& timing = timings_[static_cast<int>(kernel)];
    if (timing.calls == 0) continue;
    const double gflops = kPeakFlops * timing.calls / timing.total_seconds / 1e9;
    if (gflops <= best.gflops) continue;
    best.gflops = gflops;
    best.best_gflops = kPeakFlops / timing.best_seconds / 1e9;
    best.kernel = kernel == Kernel::kAten ? "ATen's mm (BLAS)" : "oneDNN's sgemm";
  }
  return best;
}

}  // namespace reports
}  // namespace static_runtime
