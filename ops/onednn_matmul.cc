#include "ops/onednn_matmul.h"

#include <unordered_map>
#include <utility>

namespace static_runtime {
namespace onednn {

using dnnl::memory;

PackedLinear::PackedLinear(at::Tensor weight, at::Tensor bias)
    : weight_(std::move(weight)),
      bias_(std::move(bias)),
      // The matmul multiplies by the [K, N] matrix: the weight transposed.
      packed_(FloatDesc({weight_.size(1), weight_.size(0)}, memory::format_tag::ba),
              weight_.data_ptr()) {}

void PackedLinear::Run(const float* src, int64_t rows, float* out) {
  const Plan& plan = plans_.Get({rows, 0, 0, 0}, [&] { return MakePlan(rows); });
  plan.Execute({{DNNL_ARG_SRC, const_cast<float*>(src)}, {DNNL_ARG_DST, out}});
}

std::unique_ptr<Plan> PackedLinear::MakePlan(int64_t rows) {
  const int64_t n = out_features(), k = in_features();
  const memory::desc src = FloatDesc({rows, k}, memory::format_tag::ab);
  const memory::desc dst = FloatDesc({rows, n}, memory::format_tag::ab);
  const memory::desc any_weights = FloatDesc({k, n}, memory::format_tag::any);
  const memory::desc bias =
      bias_.defined() ? FloatDesc({1, n}, memory::format_tag::ab) : memory::desc();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, any_weights, bias, dst), attr,
                                        CpuEngine());
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, memory(src, CpuEngine(), nullptr)},
      {DNNL_ARG_DST, memory(dst, CpuEngine(), nullptr)},
      {DNNL_ARG_WEIGHTS, packed_.Get(pd.weights_desc())},
  };
  if (bias_.defined()) args.emplace(DNNL_ARG_BIAS, memory(bias, CpuEngine(), bias_.data_ptr()));
  return std::make_unique<Plan>(dnnl::matmul(pd), std::move(args), pd.scratchpad_desc());
}

}  // namespace onednn
}  // namespace static_runtime
