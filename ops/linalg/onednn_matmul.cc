#include "ops/linalg/onednn_matmul.h"

#include <string>
#include <unordered_map>
#include <utility>

#include "absl/strings/match.h"
#include "execution/product_clock.h"

namespace static_runtime {
namespace onednn {

using dnnl::memory;

namespace {

// Whether a matmul of `rows` rows and `n` outputs, which oneDNN's
// implementation `implementation` (its impl_info_str) runs with the weight in
// the layout it chose, runs faster with the weight as it is stored ([N, K]
// row-major). oneDNN's gemm-based matmul, its only one for CPUs without
// AVX-512, chooses [K, N] row-major and then runs products of many rows into
// 1024 or more outputs at 27-28 GFLOP/s on AMD Zen, against 33-35.5 with the
// weight as stored (188 and 256 x 256 x 1024, 128 x 768 x 3072, 200 x 512 x
// 2048; one thread); for fewer rows or outputs its choice is as fast or
// faster (8 x 512 x 512: 26 against 21; 16 x 768 x 3072: 25 against 22).
// Its choice is slow too for 512 outputs (rows of 2 KB in [K, N]: the
// cache sets alias; AMD Zen 3: 64, 128 and 256 rows x 512 x 512, 100 x
// 768 x 512 at 53-69 GFLOP/s, against 78-96 with the weight as stored).
// The brgemm matmul (AVX-512) packs the weight in a blocked layout of its own.
bool PrefersWeightsAsStored(const std::string& implementation, int64_t rows, int64_t n) {
  return absl::StartsWith(implementation, "gemm") && rows >= 64 && (n >= 1024 || n % 512 == 0);
}

}  // namespace

// The row count whose weight layout the constructor packs. oneDNN's brgemm
// matmul (AVX-512) chooses the weight's blocking from N and K, so that every
// row count wants the same layout; its gemm matmul (AVX2) wants [K, N] for
// fewer than 64 rows (PrefersWeightsAsStored).
constexpr int64_t kPackedAtLoadRows = 16;

PackedLinear::PackedLinear(at::Tensor weight, at::Tensor bias)
    : weight_(std::move(weight)),
      bias_(std::move(bias)),
      // The matmul multiplies by the [K, N] matrix: the weight transposed.
      packed_(FloatDesc({weight_.size(1), weight_.size(0)}, memory::format_tag::ba),
              weight_.data_ptr()) {
  // Packed now, at load time, rather than by a shape's first call.
  packed_.Get(Describe(kPackedAtLoadRows).weights_desc());
}

void PackedLinear::Run(const float* src, int64_t rows, float* out) {
  const std::shared_ptr<const Plan> plan =
      plans_.Get({rows, 0, 0, 0}, [&] { return MakePlan(rows); });
  const ops::ProductScope product(1, rows, in_features(), out_features());
  plan->Execute({{DNNL_ARG_SRC, const_cast<float*>(src)}, {DNNL_ARG_DST, out}});
}

dnnl::matmul::primitive_desc PackedLinear::Describe(int64_t rows) const {
  const int64_t n = out_features(), k = in_features();
  const memory::desc src = FloatDesc({rows, k}, memory::format_tag::ab);
  const memory::desc dst = FloatDesc({rows, n}, memory::format_tag::ab);
  const memory::desc any_weights = FloatDesc({k, n}, memory::format_tag::any);
  const memory::desc bias =
      bias_.defined() ? FloatDesc({1, n}, memory::format_tag::ab) : memory::desc();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, any_weights, bias, dst), attr,
                                  CpuEngine());
  if (PrefersWeightsAsStored(pd.impl_info_str(), rows, n)) {
    pd = dnnl::matmul::primitive_desc(
        dnnl::matmul::desc(src, FloatDesc({k, n}, memory::format_tag::ba), bias, dst), attr,
        CpuEngine());
  }
  return pd;
}

std::unique_ptr<Plan> PackedLinear::MakePlan(int64_t rows) {
  const dnnl::matmul::primitive_desc pd = Describe(rows);
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, memory(pd.src_desc(), CpuEngine(), nullptr)},
      {DNNL_ARG_DST, memory(pd.dst_desc(), CpuEngine(), nullptr)},
      {DNNL_ARG_WEIGHTS, packed_.Get(pd.weights_desc())},
  };
  if (bias_.defined()) {
    args.emplace(DNNL_ARG_BIAS, memory(pd.bias_desc(), CpuEngine(), bias_.data_ptr()));
  }
  return std::make_unique<Plan>(dnnl::matmul(pd), std::move(args), pd.scratchpad_desc());
}

}  // namespace onednn
}  // namespace static_runtime
