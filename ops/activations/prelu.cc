// aten::prelu as an out variant: y = x > 0 ? x : w * x, with w one weight or
// one per channel (dimension 1), on contiguous float and double inputs. One
// comparison and at most one rounding per element, as ATen's CPU kernel
// does, so the results are ATen's bit for bit (NaN stays NaN, the sign of a
// zero times w as IEEE gives it). Other layouts, dtypes and weight shapes
// run ATen's op, with its result or its error.
#include <cstdint>
#include <cstring>

#include "ATen/ATen.h"
#include "ops/core/out_variant.h"
#include "ops/core/per_isa.h"

namespace static_runtime {
namespace {

// One run of `count` elements sharing the weight w: a select of x and w * x
// (a compare and a blend, which the compiler vectorizes on AVX-512 only:
// the multiply may trap, so elsewhere it stays behind a branch).
template <typename T>
inline void PreluRunImpl(const T* x, T w, int64_t count, T* y) {
  for (int64_t i = 0; i < count; ++i) {
    const T scaled = w * x[i];
    y[i] = x[i] > T(0) ? x[i] : scaled;
  }
}

// Floats: eight at a time in GCC's vector types, written in the cloned
// function itself (GCC lowers a vector type to the ISA of the function that
// spells it, before inlining): a multiply, a compare and a blend per
// vector on every ISA, the same operations as PreluRunImpl's per element.
using Floats = float __attribute__((vector_size(32)));
STATIC_RUNTIME_PER_ISA void PreluRun(const float* x, float w, int64_t count, float* y) {
  constexpr int64_t kLanes = sizeof(Floats) / sizeof(float);
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    Floats v;
    std::memcpy(&v, x + i, sizeof v);
    const Floats scaled = v * w;
    const Floats selected = v > 0.0f ? v : scaled;
    std::memcpy(y + i, &selected, sizeof selected);
  }
  PreluRunImpl(x + i, w, count - i, y + i);
}
STATIC_RUNTIME_PER_ISA void PreluRun(const double* x, double w, int64_t count, double* y) {
  PreluRunImpl(x, w, count, y);
}

template <typename T>
void Prelu(const T* x, const T* weight, bool per_channel, int64_t batch, int64_t channels,
           int64_t inner, T* y) {
  if (!per_channel) {
    PreluRun(x, weight[0], batch * channels * inner, y);
    return;
  }
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t first = (n * channels + c) * inner;
      PreluRun(x + first, weight[c], inner, y + first);
    }
  }
}

}  // namespace

void RegisterPreluKernels(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::prelu", "", [](NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const at::Tensor& weight = TensorArg(io, 1);
    auto functional = [&] { return at::prelu(input, weight); };
    const at::ScalarType dtype = input.scalar_type();
    const int64_t channels = input.dim() >= 2 ? input.size(1) : 1;
    const bool per_channel = weight.numel() != 1;
    if ((dtype != at::kFloat && dtype != at::kDouble) || weight.scalar_type() != dtype ||
        !PlainCpuTensor(input) || !PlainCpuTensor(weight) || !input.is_contiguous() ||
        input.suggest_memory_format() != at::MemoryFormat::Contiguous || input.dim() == 0 ||
        !weight.is_contiguous() || weight.dim() > 1 ||
        (per_channel && weight.numel() != channels)) {
      io.Output(0) = functional();
      return;
    }
    WriteOutput(io, 0, dtype, functional, [&](at::Tensor& out) {
      out.resize_(input.sizes());
      const int64_t batch = input.dim() >= 2 ? input.size(0) : 1;
      const int64_t inner = input.numel() == 0 ? 0 : input.numel() / (batch * channels);
      if (inner == 0) return;
      AT_DISPATCH_FLOATING_TYPES(dtype, "prelu", [&] {
        Prelu(input.data_ptr<scalar_t>(), weight.data_ptr<scalar_t>(), per_channel, batch, channels,
              inner, out.data_ptr<scalar_t>());
      });
    });
  }));
}

}  // namespace static_runtime
