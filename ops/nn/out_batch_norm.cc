// Out-variant kernels for aten::batch_norm in inference (training false),
// the batch norms freezing cannot fold into a convolution (those after a
// concatenation, a pooling or an activation: DenseNet's, pre-activation
// ResNets', BatchNorm1d after non-linear layers), and for
// static_runtime::batch_norm_relu (passes/fuse_batch_norm_relu.h), which
// applies ATen's relu to each value as it writes it.
//
// ATen's CPU kernel computes, per channel c, in float32:
//   invstd = 1 / sqrt(var + eps), alpha = invstd * weight,
//   beta = bias - mean * alpha, y = x * alpha + beta
// and its AVX2/AVX512 kernels (as Debian builds them) contract the last two
// into fused multiply-adds. This kernel computes the same with explicit FMAs
// (ops/nn/scale_shift.h), into the planned output, where ATen runs those loops:
// inputs dense in the layout their strides suggest, contiguous or
// channels-last 4-D, with contiguous per-channel tensors. Whether they
// contract is a fact of how LibTorch was compiled, so at first use a probe
// compares both on values where contraction changes the result; only if
// they match bit for bit does the kernel compute anything itself. Training
// mode, other dtypes and layouts, empty inputs and arguments ATen rejects
// run ATen's own op (its result, its error).
#include <algorithm>
#include <cmath>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/Parallel.h"
#include "ops/core/out_variant.h"
#include "ops/nn/aten_order_kernels.h"
#include "ops/nn/scale_shift.h"

namespace static_runtime {
namespace {

struct BatchNormArgs {
  at::Tensor input;
  c10::optional<at::Tensor> weight, bias, mean, var;
  double eps;
};

bool PerChannel(const c10::optional<at::Tensor>& t, int64_t channels, bool required) {
  if (!t || !t->defined()) return !required;
  return t->scalar_type() == at::kFloat && t->dim() == 1 && t->size(0) == channels &&
         t->is_contiguous() && t->is_cpu();
}

// The input's layout when ATen's contiguous or channels-last kernel (the
// FMA loops) computes it: the input dense in the layout its strides suggest,
// which is one of those two, and every per-channel tensor contiguous. Else
// (channels-last 5-D, strided inputs or parameters) ATen computes
// ((x - mean) * invstd) * weight + bias element by element, which this
// kernel leaves to ATen.
c10::optional<at::MemoryFormat> FmaLayout(const BatchNormArgs& a) {
  const at::Tensor& x = a.input;
  const at::MemoryFormat layout = x.suggest_memory_format();
  if ((layout != at::MemoryFormat::Contiguous && layout != at::MemoryFormat::ChannelsLast) ||
      !x.is_contiguous(layout)) {
    return c10::nullopt;
  }
  const int64_t channels = x.size(1);
  if (!PerChannel(a.mean, channels, true) || !PerChannel(a.var, channels, true) ||
      !PerChannel(a.weight, channels, false) || !PerChannel(a.bias, channels, false)) {
    return c10::nullopt;
  }
  return layout;
}

// Whether the kernel computes these arguments itself (else ATen's op runs).
bool Takes(const BatchNormArgs& a, bool training) {
  const at::Tensor& x = a.input;
  return !training && x.scalar_type() == at::kFloat && x.is_cpu() && x.dim() >= 2 &&
         x.numel() > 0 && !x.is_neg() && !x.is_conj() && FmaLayout(a).has_value();
}

// y = batch_norm(x), then with `relu` relu(y), into `out`, resized to x's
// sizes and layout.
void Compute(const BatchNormArgs& a, bool relu, at::Tensor& out) {
  const at::Tensor& x = a.input;
  const int64_t channels = x.size(1);
  thread_local std::vector<float> alpha, beta;
  alpha.resize(channels);
  beta.resize(channels);
  const float* mean = a.mean->data_ptr<float>();
  const float* var = a.var->data_ptr<float>();
  const float* weight = a.weight && a.weight->defined() ? a.weight->data_ptr<float>() : nullptr;
  const float* bias = a.bias && a.bias->defined() ? a.bias->data_ptr<float>() : nullptr;
  const float eps = static_cast<float>(a.eps);
  for (int64_t c = 0; c < channels; ++c) {
    const float invstd = 1.f / std::sqrt(var[c] + eps);
    alpha[c] = weight != nullptr ? invstd * weight[c] : invstd;
    beta[c] = std::fma(-mean[c], alpha[c], bias != nullptr ? bias[c] : 0.f);
  }
  const at::MemoryFormat layout = *FmaLayout(a);
  at::native::resize_(out, x.sizes(), layout);
  const float* in = x.data_ptr<float>();
  float* result = out.data_ptr<float>();
  // The thread-local vectors are this thread's: parallel_for's workers
  // read them through these pointers.
  const float* alpha_data = alpha.data();
  const float* beta_data = beta.data();
  const int64_t inner = x.numel() / (x.size(0) * channels);
  // A contiguous [N, C] (or [N, C, 1, ...]) is laid out as channels-last.
  if (layout == at::MemoryFormat::ChannelsLast || inner == 1) {
    const int64_t pixels = x.numel() / channels;
    at::parallel_for(0, pixels, std::max<int64_t>(1, at::internal::GRAIN_SIZE / channels),
                     [&](int64_t begin, int64_t end) {
                       ops::ScaleShiftChannelsLast(in, result, alpha_data, beta_data, begin, end,
                                                   channels, relu);
                     });
  } else {
    at::parallel_for(0, x.size(0) * channels,
                     std::max<int64_t>(1, at::internal::GRAIN_SIZE / inner),
                     [&](int64_t begin, int64_t end) {
                       ops::ScaleShiftChannelsFirst(in, result, alpha_data, beta_data, begin, end,
                                                    channels, inner, relu);
                     });
  }
}

at::Tensor Aten(const BatchNormArgs& a, bool training, double momentum, bool cudnn) {
  return at::batch_norm(a.input, a.weight, a.bias, a.mean, a.var, training, momentum, a.eps, cudnn);
}

// Whether Compute gives ATen's bits (with `relu`, of batch_norm then relu)
// on this build and CPU: on values spread over channels (some NaN and infinite, and
// zeros of both signs where the batch norm keeps them: channel 0's mean,
// bias and inputs are -0), in both layouts, with and without weight and
// bias.
bool Probe(bool relu) {
  if (!ops::ScaleShiftAvailable()) return false;
  const auto values = [](int64_t n, double phase) {
    return at::sin(at::arange(n, at::kFloat) * 0.7548776662 + phase);
  };
  for (const bool affine : {true, false}) {
    BatchNormArgs a;
    a.mean = values(37, 1) * 0.5;
    a.var = values(37, 2).abs() + 0.25;
    if (affine) {
      a.weight = values(37, 3) * 2;
      a.bias = values(37, 4);
    }
    a.eps = 1e-5;
    a.mean->index_put_({0}, -0.f);
    if (affine) a.bias->index_put_({0}, -0.f);
    at::Tensor x = values(2 * 37 * 5 * 3, 5).view({2, 37, 5, 3}) * 8;
    x.select(1, 0).fill_(-0.f);
    x.view(-1).index_put_({7}, NAN);
    x.view(-1).index_put_({100}, INFINITY);
    x.view(-1).index_put_({200}, -INFINITY);
    for (const at::Tensor& input :
         {x, x.contiguous(at::MemoryFormat::ChannelsLast), x.view({30, 37})}) {
      a.input = input;
      at::Tensor expected = Aten(a, false, 0.1, false);
      if (relu) expected = expected.relu();
      at::Tensor ours = at::empty({0});
      Compute(a, relu, ours);
      if (!ops::SameBitsOrBothNan(ours, expected)) return false;
    }
  }
  return true;
}

bool MatchesAten(bool relu) {
  static const bool kMatches[2] = {Probe(false), Probe(true)};
  return kMatches[relu ? 1 : 0];
}

// batch_norm, then with `relu` relu, of the node's inputs (batch_norm's).
void BatchNorm(NodeIO& io, bool relu) {
  BatchNormArgs a{TensorArg(io, 0),         OptionalTensorArg(io, 1), OptionalTensorArg(io, 2),
                  OptionalTensorArg(io, 3), OptionalTensorArg(io, 4), io.Input(7).toDouble()};
  const bool training = io.Input(5).toBool();
  if (!Takes(a, training) || !MatchesAten(relu)) {
    at::Tensor result = Aten(a, training, io.Input(6).toDouble(), io.Input(8).toBool());
    io.Output(0) = relu ? result.relu_() : result;
    return;
  }
  Compute(a, relu, ReusableOrNewOutput(io, 0, at::kFloat));
}

}  // namespace

void RegisterOutBatchNormKernels(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::batch_norm", "", [](NodeIO& io) { BatchNorm(io, false); }));
  registry.Add(
      OutVariant("static_runtime::batch_norm_relu", "", [](NodeIO& io) { BatchNorm(io, true); }));
}

}  // namespace static_runtime
