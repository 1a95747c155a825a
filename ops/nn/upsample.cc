// Out variants of upsample_nearest2d and upsample_bilinear2d with an output
// size or scale factors (the .vec overloads F.interpolate calls and traces
// record), and of upsample_nearest2d with an output size and optional
// scales: ATen's own CPU kernels writing into the planned output, so the
// results are the JIT's bit for bit.
#include "ATen/native/UpSample.h"

#include <vector>

#include "ATen/ATen.h"
#include "ATen/CPUFunctions.h"
#include "ops/core/out_variant.h"

namespace static_runtime {
namespace {

// The optional output size and scale factors of a .vec call, and the
// output size and per-dim scales ATen's functional form derives from them.
struct VecArguments {
  VecArguments(const at::Tensor& input, const c10::IValue& size_value,
               const c10::IValue& scales_value)
      : given_size(size_value.toOptional<std::vector<int64_t>>()),
        given_scales(scales_value.toOptional<std::vector<double>>()) {
    if (given_size) size = *given_size;
    if (given_scales) scales = *given_scales;
    output_size = at::native::upsample::compute_output_size(input.sizes(), size, scales);
    scale_h = at::native::upsample::get_scale_value(scales, 0);
    scale_w = at::native::upsample::get_scale_value(scales, 1);
  }
  c10::optional<std::vector<int64_t>> given_size;
  c10::optional<std::vector<double>> given_scales;
  at::OptionalIntArrayRef size;
  c10::optional<c10::ArrayRef<double>> scales;
  c10::SmallVector<int64_t, 3> output_size;
  c10::optional<double> scale_h;
  c10::optional<double> scale_w;
};

}  // namespace

void RegisterUpsampleKernels(KernelRegistry& registry) {
  // upsample_nearest2d.vec(input, output_size?, scale_factors?)
  registry.Add(OutVariant("aten::upsample_nearest2d", "vec", [](NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const VecArguments args(input, io.Input(1), io.Input(2));
    WriteOutput(
        io, 0, input.scalar_type(),
        [&] { return at::upsample_nearest2d(input, args.size, args.scales); },
        [&](at::Tensor& out) {
          at::cpu::upsample_nearest2d_out(out, input, args.output_size, args.scale_h, args.scale_w);
        });
  }));
  // upsample_bilinear2d.vec(input, output_size?, align_corners, scale_factors?)
  registry.Add(OutVariant("aten::upsample_bilinear2d", "vec", [](NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const bool align_corners = io.Input(2).toBool();
    const VecArguments args(input, io.Input(1), io.Input(3));
    WriteOutput(
        io, 0, input.scalar_type(),
        [&] { return at::upsample_bilinear2d(input, args.size, align_corners, args.scales); },
        [&](at::Tensor& out) {
          at::cpu::upsample_bilinear2d_out(out, input, args.output_size, align_corners,
                                           args.scale_h, args.scale_w);
        });
  }));
  // upsample_nearest2d(input, output_size, scales_h?, scales_w?)
  registry.Add(OutVariant("aten::upsample_nearest2d", "", [](NodeIO& io) {
    const at::Tensor& input = TensorArg(io, 0);
    const std::vector<int64_t> size = io.Input(1).toIntVector();
    const auto scale_h = io.Input(2).toOptional<double>();
    const auto scale_w = io.Input(3).toOptional<double>();
    WriteOutput(
        io, 0, input.scalar_type(),
        [&] { return at::upsample_nearest2d(input, size, scale_h, scale_w); },
        [&](at::Tensor& out) {
          at::cpu::upsample_nearest2d_out(out, input, size, scale_h, scale_w);
        });
  }));
}

}  // namespace static_runtime
