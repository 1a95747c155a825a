// Out-variant kernels for neural-network layers: softmax, log_softmax,
// layer_norm, embedding, adaptive average pooling and im2col/col2im (the
// unfold and fold of nn.functional) (max_pool2d and
// avg_pool2d have their own files, out_max_pool.cc and out_avg_pool.cc). Statistics that the layer
// computes and throws away (layer_norm's mean and rstd) go to per-thread scratch tensors.
// aten::conv1d/conv2d (when not pre-packed into conv2d_fused, ops/conv/conv2d.cc) stay in fallback:
// LibTorch 1.13 has no CPU out form for them. batch_norm has its own file, out_batch_norm.cc.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/CPUFunctions.h"
#include "c10/util/accumulate.h"
#include "ops/core/cpu_kernels.h"
#include "ops/core/out_variant.h"
#include "ops/nn/global_avg_pool.h"
#include "ops/nn/layer_norm_rows.h"
#include "ops/nn/softmax_rows.h"

namespace static_runtime {
namespace {

void RegisterSoftmax(KernelRegistry& registry) {
  for (const bool log : {false, true}) {
    registry.Add(OutVariant(log ? "aten::log_softmax" : "aten::softmax", "int", [log](NodeIO& io) {
      const at::Tensor& self = TensorArg(io, 0);
      const int64_t dim = io.Input(1).toInt();
      const auto dtype = io.Input(2).toOptional<at::ScalarType>();
      WriteOutput(
          io, 0, dtype.value_or(self.scalar_type()),
          [&] { return log ? at::log_softmax(self, dim, dtype) : at::softmax(self, dim, dtype); },
          [&](at::Tensor& out) {
            // Over the last dimension of a contiguous float tensor: ATen's
            // kernel, without the op's dispatch and checks.
            const int64_t rank = self.dim();
            if (!dtype && rank > 0 && (dim == -1 || dim == rank - 1) && self.numel() > 0 &&
                (self.scalar_type() == at::kFloat || self.scalar_type() == at::kDouble) &&
                self.is_contiguous() && self.layout() == at::kStrided && !self.is_neg() &&
                !self.is_conj()) {
              if (!out.sizes().equals(self.sizes())) out.resize_(self.sizes());
              if (out.is_contiguous()) {
                if (log) {
                  SoftmaxLastDimInto(self, out, /*log=*/true);
                } else {
                  ops::FastSoftmaxLastDimInto(self, out);
                }
                return;
              }
            }
            log ? at::log_softmax_out(out, self, dim, dtype)
                : at::softmax_out(out, self, dim, dtype);
          });
    }));
  }
}

void RegisterNormalization(KernelRegistry& registry) {
  // layer_norm runs ATen's CPU layer-norm kernel directly on the output
  // (native_layer_norm.out would compute into temporaries and copy).
  registry.Add(OutVariant("aten::layer_norm", "", [](NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const std::vector<int64_t> shape = io.Input(1).toIntVector();
    const c10::optional<at::Tensor> weight = OptionalTensorArg(io, 2);
    const c10::optional<at::Tensor> bias = OptionalTensorArg(io, 3);
    const double eps = io.Input(4).toDouble();
    const bool cudnn = io.Input(5).toBool();
    auto functional = [&] { return at::layer_norm(input, shape, weight, bias, eps, cudnn); };
    const auto matches = [&](const c10::optional<at::Tensor>& t) {
      return !t || !t->defined() ||
             (t->scalar_type() == input.scalar_type() && t->sizes().equals(shape));
    };
    const int64_t axis = input.dim() - static_cast<int64_t>(shape.size());
    if (shape.empty() || axis < 0 || !input.sizes().slice(axis).equals(shape) || !matches(weight) ||
        !matches(bias) || !at::isFloatingType(input.scalar_type())) {
      io.Output(0) = functional();  // gives ATen's own error or mixed-dtype result
      return;
    }
    WriteOutput(io, 0, input.scalar_type(), functional, [&](at::Tensor& out) {
      const int64_t m = c10::multiply_integers(input.sizes().slice(0, axis));
      const int64_t n = c10::multiply_integers(shape);
      const at::Tensor x = input.contiguous();
      const at::Tensor gamma = weight && weight->defined() ? weight->contiguous() : at::Tensor();
      const at::Tensor beta = bias && bias->defined() ? bias->contiguous() : at::Tensor();
      at::Tensor& mean = ThreadScratch(0, input.scalar_type());
      at::Tensor& rstd = ThreadScratch(1, input.scalar_type());
      out.resize_(input.sizes());
      mean.resize_({m});
      rstd.resize_({m});
      if (m > 0) {
        ops::FastLayerNormInto(x, gamma, beta, m, n, eps, out, mean, rstd);
      }
    });
  }));
}

// Lookups of at most this many rows (a decoder's tokens, one step at a
// time) copy the rows one by one: index_select's dispatch and checks cost
// more than the copies (seq2seq's 2 tokens of 128 floats: 2.5 us a call).
constexpr int64_t kMaxCopiedRows = 256;

// The copies, for `Index` (int64 or int32) indices; false, having left
// `out` alone, when an index is out of range.
template <typename Index>
bool CopyRowsAt(const at::Tensor& weight, const at::Tensor& indices, at::Tensor& out) {
  const Index* index = indices.data_ptr<Index>();
  const int64_t count = indices.numel(), rows = weight.size(0);
  if (!std::all_of(index, index + count,
                   [rows](Index i) { return i >= 0 && static_cast<int64_t>(i) < rows; })) {
    return false;
  }
  std::vector<int64_t> shape = indices.sizes().vec();
  shape.push_back(weight.size(1));
  if (!out.sizes().equals(shape)) out.resize_(shape);
  if (!out.is_contiguous()) return false;
  const size_t row_bytes = weight.size(1) * weight.element_size();
  const auto* from = static_cast<const char*>(weight.data_ptr());
  auto* to = static_cast<char*>(out.data_ptr());
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(to + i * row_bytes, from + static_cast<int64_t>(index[i]) * row_bytes, row_bytes);
  }
  return true;
}

// embedding's rows copied into `out` (resized to indices + [dim]); false,
// having left `out` alone, for what the copies do not take: a weight or
// indices not contiguous, many indices, or an index out of range (for which
// index_select gives ATen's error).
bool CopyPickedRows(const at::Tensor& weight, const at::Tensor& indices, at::Tensor& out) {
  const at::ScalarType index_type = indices.scalar_type();
  if (indices.numel() == 0 || indices.numel() > kMaxCopiedRows || !weight.is_contiguous() ||
      !indices.is_contiguous() || weight.layout() != at::kStrided || weight.is_quantized() ||
      weight.is_neg() || weight.is_conj() || (index_type != at::kLong && index_type != at::kInt)) {
    return false;
  }
  return index_type == at::kLong ? CopyRowsAt<int64_t>(weight, indices, out)
                                 : CopyRowsAt<int32_t>(weight, indices, out);
}

// aten::adaptive_avg_pool<dims>d, by ATen's `functional` form and `pool_out`.
// The functional form computes an output of ones (a global pool) as a mean
// over the pooled dims, another summation order than the pooling kernel's:
// so does the out form.
template <typename Functional, typename PoolOut>
void RegisterAdaptiveAvgPool(KernelRegistry& registry, const char* name, size_t dims,
                             Functional functional, PoolOut pool_out) {
  std::vector<int64_t> pooled_dims;
  for (int64_t d = 1; d <= static_cast<int64_t>(dims); ++d) pooled_dims.push_back(-d);
  registry.Add(OutVariant(name, "", [=](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const std::vector<int64_t> size = io.Input(1).toIntVector();
    const bool global = size.size() == dims && !self.is_quantized() &&
                        std::all_of(size.begin(), size.end(), [](int64_t s) { return s == 1; });
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return functional(self, size); },
        [&](at::Tensor& out) {
          if (global) {
            // A channels-last image's mean by our kernel, ATen's bits.
            if (dims != 2 || !ops::GlobalAvgPoolInto(self, out)) {
              at::mean_out(out, self, pooled_dims, /*keepdim=*/true);
            }
          } else {
            pool_out(out, self, size);
          }
        });
  }));
}

// im2col and col2im: ATen's CPU out kernels.
void RegisterUnfoldAndFold(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::im2col", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const std::vector<int64_t> kernel = io.Input(1).toIntVector(),
                               dilation = io.Input(2).toIntVector(),
                               padding = io.Input(3).toIntVector(),
                               stride = io.Input(4).toIntVector();
    WriteOutput(
        io, 0, self.scalar_type(),
        [&] { return at::im2col(self, kernel, dilation, padding, stride); },
        [&](at::Tensor& out) {
          at::cpu::im2col_out(out, self, kernel, dilation, padding, stride);
        });
  }));
  registry.Add(OutVariant("aten::col2im", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const std::vector<int64_t> size = io.Input(1).toIntVector(), kernel = io.Input(2).toIntVector(),
                               dilation = io.Input(3).toIntVector(),
                               padding = io.Input(4).toIntVector(),
                               stride = io.Input(5).toIntVector();
    WriteOutput(
        io, 0, self.scalar_type(),
        [&] { return at::col2im(self, size, kernel, dilation, padding, stride); },
        [&](at::Tensor& out) {
          at::cpu::col2im_out(out, self, size, kernel, dilation, padding, stride);
        });
  }));
}

void RegisterEmbeddingAndPooling(KernelRegistry& registry) {
  // embedding = rows of `weight` picked by `indices`, shaped indices + [dim].
  registry.Add(OutVariant("aten::embedding", "", [](NodeIO& io) {
    const at::Tensor& weight = TensorArg(io, 0);
    const at::Tensor& indices = TensorArg(io, 1);
    auto functional = [&] {
      return at::embedding(weight, indices, io.Input(2).toInt(), io.Input(3).toBool(),
                           io.Input(4).toBool());
    };
    if (weight.dim() != 2) {
      io.Output(0) = functional();
      return;
    }
    WriteOutput(io, 0, weight.scalar_type(), functional, [&](at::Tensor& out) {
      if (CopyPickedRows(weight, indices, out)) return;
      at::cpu::index_select_out(out, weight, 0, indices.reshape(-1));
      std::vector<int64_t> shape = indices.sizes().vec();
      shape.push_back(weight.size(1));
      out.unsafeGetTensorImpl()->set_sizes_contiguous(shape);
    });
  }));
  RegisterAdaptiveAvgPool(
      registry, "aten::adaptive_avg_pool2d", 2,
      [](const at::Tensor& self, at::IntArrayRef size) {
        return at::adaptive_avg_pool2d(self, size);
      },
      [](at::Tensor& out, const at::Tensor& self, at::IntArrayRef size) {
        at::cpu::adaptive_avg_pool2d_out(out, self, size);
      });
  RegisterAdaptiveAvgPool(
      registry,  // video classifiers' global pool
      "aten::adaptive_avg_pool3d", 3,
      [](const at::Tensor& self, at::IntArrayRef size) {
        return at::adaptive_avg_pool3d(self, size);
      },
      [](at::Tensor& out, const at::Tensor& self, at::IntArrayRef size) {
        at::adaptive_avg_pool3d_out(out, self, size);
      });
}

}  // namespace

void RegisterOutNnKernels(KernelRegistry& registry) {
  RegisterSoftmax(registry);
  RegisterNormalization(registry);
  RegisterEmbeddingAndPooling(registry);
  RegisterUnfoldAndFold(registry);
}

}  // namespace static_runtime
