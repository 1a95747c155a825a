#include "ops/quantized/dynamic_linear.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <utility>

#include "ATen/native/quantized/cpu/QuantUtils.h"

namespace static_runtime {
namespace quantized {
namespace {

using dnnl::memory;

// Whether `params` were packed by LibTorch's onednn engine (whose arithmetic
// this kernel reproduces).
bool PackedByOnednn(const LinearPackedParamsBase& params) {
  return std::string(typeid(params).name()).find("PackedLinearWeightsOnednn") != std::string::npos;
}

// The loops below run only where ExactIntegerProducts(), on CPUs with AVX2.

// [min(x, 0), max(x, 0)] over `count` values, or nullopt when one of them
// is not finite (min and max alone would drop a NaN).
__attribute__((target("avx2"))) std::optional<std::pair<float, float>> FiniteRangeWithZero(
    const float* x, int64_t count) {
  const __m256 zero = _mm256_setzero_ps();
  __m256 low = zero, high = zero;
  __m256 finite = _mm256_castsi256_ps(_mm256_set1_epi32(-1));  // x - x == 0 so far
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    low = _mm256_min_ps(low, v);
    high = _mm256_max_ps(high, v);
    finite = _mm256_and_ps(finite, _mm256_cmp_ps(_mm256_sub_ps(v, v), zero, _CMP_EQ_OQ));
  }
  if (_mm256_movemask_ps(finite) != 0xFF) return std::nullopt;
  alignas(32) float lows[8], highs[8];
  _mm256_store_ps(lows, low);
  _mm256_store_ps(highs, high);
  float min_value = 0, max_value = 0;
  for (int j = 0; j < 8; ++j) {
    min_value = std::min(min_value, lows[j]);
    max_value = std::max(max_value, highs[j]);
  }
  for (; i < count; ++i) {
    if (!std::isfinite(x[i])) return std::nullopt;
    min_value = std::min(min_value, x[i]);
    max_value = std::max(max_value, x[i]);
  }
  return std::make_pair(min_value, max_value);
}

// q = clamp(nearbyint(x * scale + zero_point), 0, 255), each operation
// rounded to float (oneDNN's reorder: adding the zero point before rounding
// moves values onto ties, measured against LibTorch near them).
__attribute__((target("avx2"))) void Quantize(const float* x, int64_t count, float scale,
                                              int32_t zero_point, uint8_t* q) {
  const __m256 scale8 = _mm256_set1_ps(scale);
  const __m256 zero8 = _mm256_set1_ps(static_cast<float>(zero_point));
  const __m256 low = _mm256_setzero_ps(), high = _mm256_set1_ps(255.0f);
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m256 v = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), scale8), zero8);
    v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm256_min_ps(_mm256_max_ps(v, low), high);
    const __m256i ints = _mm256_cvtps_epi32(v);
    const __m128i words =
        _mm_packus_epi32(_mm256_castsi256_si128(ints), _mm256_extracti128_si256(ints, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(q + i), _mm_packus_epi16(words, words));
  }
  for (; i < count; ++i) {
    const float value = std::nearbyint(x[i] * scale + static_cast<float>(zero_point));
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

}  // namespace

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

DynamicLinear::DynamicLinear(const at::Tensor& weight, at::Tensor bias, bool relu)
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

std::unique_ptr<DynamicLinear> DynamicLinear::FromPacked(const LinearPackedParamsBase& params,
                                                         bool relu) {
  if (!ExactIntegerProducts() || !PackedByOnednn(params)) return nullptr;
  auto [weight, bias] = const_cast<LinearPackedParamsBase&>(params).unpack();
  if (weight.scalar_type() != at::kQInt8 || weight.dim() != 2 || weight.numel() == 0) {
    return nullptr;
  }
  if (weight.qscheme() == at::kPerTensorAffine) {
    if (weight.q_zero_point() != 0) return nullptr;
  } else if (weight.qscheme() != at::kPerChannelAffine || weight.q_per_channel_axis() != 0 ||
             weight.q_per_channel_zero_points().ne(0).any().item<bool>()) {
    return nullptr;
  }
  at::Tensor float_bias;
  if (bias.has_value()) {
    if (bias->scalar_type() != at::kFloat || bias->numel() != weight.size(0)) return nullptr;
    float_bias = bias->detach().contiguous();
  }
  return std::make_unique<DynamicLinear>(weight, std::move(float_bias), relu);
}

bool DynamicLinear::Compute(const float* x, int64_t rows, bool reduce_range, float* out) {
  const int64_t k = in_features(), n = out_features();
  const int64_t count = rows * k;
  const std::optional<std::pair<float, float>> range = FiniteRangeWithZero(x, count);
  if (!range.has_value()) return false;
  const auto params = quant_utils::ChooseQuantizationParams(
      range->first, range->second, 0, 255, /*preserve_sparsity=*/false,
      /*force_scale_power_of_two=*/false, reduce_range);
  const float inverse_scale = static_cast<float>(1.0 / params.scale);
  const int32_t zero_point = params.zero_point;
  auto* quantized = static_cast<uint8_t*>(onednn::ThreadScratchpad(count, 1));
  Quantize(x, count, inverse_scale, zero_point, quantized);
  auto* products = static_cast<int32_t*>(onednn::ThreadScratchpad(rows * n * sizeof(int32_t), 2));
  const std::shared_ptr<const onednn::Plan> plan =
      plans_.Get({rows, 0, 0, 0}, [&] { return MakePlan(rows); });
  plan->Execute({{DNNL_ARG_SRC, quantized}, {DNNL_ARG_DST, products}});
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
               output_scale.data(), relu_, out + m * n);
  }
  return true;
}

std::unique_ptr<onednn::Plan> DynamicLinear::MakePlan(int64_t rows) {
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

}  // namespace quantized
}  // namespace static_runtime
