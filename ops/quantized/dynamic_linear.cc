// Out-variant kernel for quantized::linear_dynamic (and _relu_dynamic):
// torch.ao.quantization.quantize_dynamic's linears, with weights packed by
// the onednn engine. Bit for bit what LibTorch 1.13 computes there (its
// ideep path), and without its cost per call: LibTorch keys its primitive
// cache on the input's quantization scale, which changes with every input,
// so it builds a new oneDNN primitive on almost every call (about 90% of
// the op's time on a 32x256 by 256x512 product); this kernel makes one int8
// product plan per row count and does the rest itself:
//   1. the input's range [min(x, 0), max(x, 0)] gives its scale s and zero
//      point z (quant_utils::ChooseQuantizationParams, 0..255, or 0..127
//      with reduce_range), and a = float(1 / s);
//   2. q = clamp(nearbyint(x * a) + z, 0, 255), in float (oneDNN's reorder);
//   3. acc[m][n] = sum_k (q[m][k] - z) w[n][k], exactly (a u8 x s8 -> s32
//      oneDNN matmul and the weight's column sums);
//   4. with c[n] = a * (1 / w_scale[n]) in float (the weight's reciprocal
//      scale as LibTorch's packing keeps it):
//      out = (float(acc) + bias[n] * c[n]) * (1 / c[n])   (then relu)
//      which is how oneDNN applies a bias and output scale to an int8
//      product (ideep hands it the reciprocal scales).
// The weight is read once, from the packed parameters (a constant of the
// frozen model). Other packed parameters (qnnpack's, fbgemm's), non-float or
// non-finite inputs, and anything else unusual run LibTorch's op; so does
// every node on a CPU whose oneDNN lacks VNNI: there int8 products go through
// 16-bit sums that saturate, in places that differ from primitive to
// primitive (measured: ONEDNN_MAX_CPU_ISA=AVX2 or AVX512_CORE gives results
// a few quanta off LibTorch's on large inputs), while VNNI sums exactly.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/native/quantized/PackedParams.h"
#include "ATen/native/quantized/cpu/QuantUtils.h"
#include "c10/util/SmallVector.h"
#include "ops/onednn.h"
#include "ops/out_variant.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

using dnnl::memory;

// Whether `params` were packed by LibTorch's onednn engine (whose arithmetic
// this kernel reproduces).
bool PackedByOnednn(const LinearPackedParamsBase& params) {
  return std::string(typeid(params).name()).find("PackedLinearWeightsOnednn") != std::string::npos;
}

// Whether oneDNN's int8 products are exact here (VNNI's 32-bit sums).
bool ExactIntegerProducts() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::avx2_vnni:
    case dnnl::cpu_isa::avx512_core_vnni:
    case dnnl::cpu_isa::avx512_core_bf16:
    case dnnl::cpu_isa::avx512_core_amx:
      return true;
    default:
      return false;
  }
}

// The loops below run only where ExactIntegerProducts(), on CPUs with AVX2.

// [min(x, 0), max(x, 0)] over `count` values.
__attribute__((target("avx2"))) std::pair<float, float> RangeWithZero(const float* x,
                                                                      int64_t count) {
  __m256 low = _mm256_setzero_ps(), high = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    low = _mm256_min_ps(low, v);
    high = _mm256_max_ps(high, v);
  }
  alignas(32) float lows[8], highs[8];
  _mm256_store_ps(lows, low);
  _mm256_store_ps(highs, high);
  float min_value = 0, max_value = 0;
  for (int j = 0; j < 8; ++j) {
    min_value = std::min(min_value, lows[j]);
    max_value = std::max(max_value, highs[j]);
  }
  for (; i < count; ++i) {
    min_value = std::min(min_value, x[i]);
    max_value = std::max(max_value, x[i]);
  }
  return {min_value, max_value};
}

// q = clamp(nearbyint(x * scale) + zero_point, 0, 255).
__attribute__((target("avx2"))) void Quantize(const float* x, int64_t count, float scale,
                                              int32_t zero_point, uint8_t* q) {
  const __m256 scale8 = _mm256_set1_ps(scale);
  const __m256 zero8 = _mm256_set1_ps(static_cast<float>(zero_point));
  const __m256 low = _mm256_setzero_ps(), high = _mm256_set1_ps(255.0f);
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m256 v = _mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), scale8),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, zero8), low), high);
    const __m256i ints = _mm256_cvtps_epi32(v);
    const __m128i words =
        _mm_packus_epi32(_mm256_castsi256_si128(ints), _mm256_extracti128_si256(ints, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(q + i), _mm_packus_epi16(words, words));
  }
  for (; i < count; ++i) {
    const float value = std::nearbyint(x[i] * scale) + static_cast<float>(zero_point);
    q[i] = static_cast<uint8_t>(std::min(255.0f, std::max(0.0f, value)));
  }
}

// out[j] = (float(acc[j] - zero_point * sums[j]) + bias[j]) * scale[j],
// then relu.
__attribute__((target("avx2"))) void Dequantize(const int32_t* acc, int64_t n, int32_t zero_point,
                                                const int32_t* sums, const float* bias,
                                                const float* scale, bool relu, float* out) {
  const __m256i zero8 = _mm256_set1_epi32(zero_point);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256i shifted = _mm256_sub_epi32(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + j)),
        _mm256_mullo_epi32(zero8, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums + j))));
    __m256 value =
        _mm256_mul_ps(_mm256_add_ps(_mm256_cvtepi32_ps(shifted), _mm256_loadu_ps(bias + j)),
                      _mm256_loadu_ps(scale + j));
    if (relu) value = _mm256_max_ps(value, _mm256_setzero_ps());
    _mm256_storeu_ps(out + j, value);
  }
  for (; j < n; ++j) {
    const float value = (static_cast<float>(acc[j] - zero_point * sums[j]) + bias[j]) * scale[j];
    out[j] = relu ? std::max(value, 0.0f) : value;
  }
}

class DynamicLinear {
 public:
  // `weight`: qint8 [N, K], per-tensor or per-channel (axis 0) scales, zero
  // points 0; `bias`: float [N] or undefined.
  DynamicLinear(const at::Tensor& weight, at::Tensor bias, bool relu)
      : weight_(weight.int_repr().contiguous()),
        bias_(std::move(bias)),
        relu_(relu),
        packed_(memory::desc({weight_.size(1), weight_.size(0)}, memory::data_type::s8,
                             memory::format_tag::ba),
                weight_.data_ptr()) {
    const int64_t n = out_features();
    // As LibTorch's onednn packing keeps them: 1 / scale in double for one
    // scale, in float of the float scales per channel.
    if (weight.qscheme() == at::kPerTensorAffine) {
      inverse_weight_scales_.assign(n, static_cast<float>(1.0 / weight.q_scale()));
    } else {
      const at::Tensor scales = weight.q_per_channel_scales().to(at::kFloat).contiguous();
      for (int64_t i = 0; i < n; ++i) {
        inverse_weight_scales_.push_back(1.0f / scales.data_ptr<float>()[i]);
      }
    }
    const at::Tensor sums = weight_.to(at::kInt).sum(1, /*keepdim=*/false, at::kInt);
    column_sums_.assign(sums.data_ptr<int32_t>(), sums.data_ptr<int32_t>() + n);
  }

  int64_t in_features() const { return weight_.size(1); }
  int64_t out_features() const { return weight_.size(0); }

  // False when `input` is not one the kernel takes (LibTorch's op then runs).
  bool Run(NodeIO& io, const at::Tensor& input, bool reduce_range) {
    const int64_t k = in_features(), n = out_features();
    if (input.scalar_type() != at::kFloat || input.dim() < 2 || input.size(-1) != k ||
        input.numel() == 0 || input.is_neg() || input.is_conj() || !input.is_cpu()) {
      return false;
    }
    const at::Tensor src = input.contiguous();
    const float* x = src.data_ptr<float>();
    const int64_t count = src.numel();
    const auto [low, high] = RangeWithZero(x, count);
    if (!std::isfinite(low) || !std::isfinite(high)) return false;
    const auto params =
        quant_utils::ChooseQuantizationParams(low, high, 0, 255, /*preserve_sparsity=*/false,
                                              /*force_scale_power_of_two=*/false, reduce_range);
    const float inverse_scale = static_cast<float>(1.0 / params.scale);
    const int32_t zero_point = params.zero_point;
    auto* quantized = static_cast<uint8_t*>(onednn::ThreadScratchpad(count, 1));
    Quantize(x, count, inverse_scale, zero_point, quantized);
    const int64_t rows = count / k;
    auto* products = static_cast<int32_t*>(onednn::ThreadScratchpad(rows * n * sizeof(int32_t), 2));
    const onednn::Plan& plan = plans_.Get({rows, 0, 0, 0}, [&] { return MakePlan(rows); });
    plan.Execute({{DNNL_ARG_SRC, quantized}, {DNNL_ARG_DST, products}});

    c10::SmallVector<int64_t, 4> out_sizes(input.sizes().begin(), input.sizes().end() - 1);
    out_sizes.push_back(n);
    at::Tensor& out = ContiguousOutput(io, 0, at::kFloat, out_sizes);
    float* y = out.data_ptr<float>();
    thread_local std::vector<float> scaled_bias, output_scale;
    scaled_bias.resize(n);
    output_scale.resize(n);
    for (int64_t j = 0; j < n; ++j) {
      const float combined = inverse_scale * inverse_weight_scales_[j];
      scaled_bias[j] = bias_.defined() ? bias_.data_ptr<float>()[j] * combined : 0.0f;
      output_scale[j] = 1.0f / combined;
    }
    for (int64_t m = 0; m < rows; ++m) {
      Dequantize(products + m * n, n, zero_point, column_sums_.data(), scaled_bias.data(),
                 output_scale.data(), relu_, y + m * n);
    }
    return true;
  }

 private:
  std::unique_ptr<onednn::Plan> MakePlan(int64_t rows) {
    const int64_t k = in_features(), n = out_features();
    const memory::desc src({rows, k}, memory::data_type::u8, memory::format_tag::ab);
    const memory::desc weights({k, n}, memory::data_type::s8, memory::format_tag::any);
    const memory::desc dst({rows, n}, memory::data_type::s32, memory::format_tag::ab);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, weights, dst), attr,
                                          onednn::CpuEngine());
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, memory(src, onednn::CpuEngine(), nullptr)},
        {DNNL_ARG_DST, memory(dst, onednn::CpuEngine(), nullptr)},
        {DNNL_ARG_WEIGHTS, packed_.Get(pd.weights_desc())},
    };
    return std::make_unique<onednn::Plan>(dnnl::matmul(pd), std::move(args), pd.scratchpad_desc());
  }

  const at::Tensor weight_;  // int8 [N, K]
  const at::Tensor bias_;
  const bool relu_;
  std::vector<float> inverse_weight_scales_;  // 1 / scale, per output
  std::vector<int32_t> column_sums_;          // sum over k of w[n][k]
  onednn::PackedWeights packed_;
  onednn::PlanCache<> plans_;
};

// The kernel for a node whose packed parameters (input 1) are a constant
// packed by the onednn engine with symmetric int8 weights, on a CPU with
// exact int8 products; else declined.
KernelOffer MakeKernel(const torch::jit::Node* node, bool relu) {
  if (!ExactIntegerProducts()) return Decline();
  const c10::optional<c10::IValue> constant = torch::jit::toIValue(node->input(1));
  if (!constant.has_value() || !constant->isCustomClass()) return Decline();
  const auto params = constant->toCustomClass<LinearPackedParamsBase>();
  if (!PackedByOnednn(*params)) return Decline();
  auto [weight, bias] = params->unpack();
  if (weight.scalar_type() != at::kQInt8 || weight.dim() != 2 || weight.numel() == 0) {
    return Decline();
  }
  if (weight.qscheme() == at::kPerTensorAffine) {
    if (weight.q_zero_point() != 0) return Decline();
  } else if (weight.qscheme() != at::kPerChannelAffine || weight.q_per_channel_axis() != 0 ||
             weight.q_per_channel_zero_points().ne(0).any().item<bool>()) {
    return Decline();
  }
  at::Tensor float_bias;
  if (bias.has_value()) {
    if (bias->scalar_type() != at::kFloat || bias->numel() != weight.size(0)) return Decline();
    float_bias = bias->detach().contiguous();
  }
  auto kernel = std::make_shared<DynamicLinear>(weight, std::move(float_bias), relu);
  return [kernel, params, relu](NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const bool reduce_range = io.Input(2).toBool();
    if (kernel->Run(io, input, reduce_range)) return;
    io.Output(0) = relu ? params->apply_dynamic_relu(input, reduce_range)
                        : params->apply_dynamic(input, reduce_range);
  };
}

const bool kRegistered = [] {
  KernelRegistry::Global().RegisterOverload(
      "quantized::linear_dynamic", "", NodeKind::kOutVariant,
      [](const torch::jit::Node* node) { return MakeKernel(node, /*relu=*/false); });
  KernelRegistry::Global().RegisterOverload(
      "quantized::linear_relu_dynamic", "", NodeKind::kOutVariant,
      [](const torch::jit::Node* node) { return MakeKernel(node, /*relu=*/true); });
  return true;
}();

}  // namespace
}  // namespace static_runtime
