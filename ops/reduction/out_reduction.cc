// Out-variant kernels for reductions and scans: sum, mean, prod, amax/amin,
// max/min (of everything, or over a dim with values and indices), argmax/argmin, norm, cumsum,
// cumprod, logsumexp, var/std, any/all.
#include "ATen/ATen.h"
#include "ATen/CPUFunctions.h"
#include "ATen/Dispatch.h"
#include "ops/core/out_variant.h"
#include "ops/reduction/arg_extremum.h"

namespace static_runtime {
namespace {

c10::optional<at::ScalarType> DtypeArg(const c10::IValue& value) {
  return value.isNone() ? c10::nullopt : c10::optional<at::ScalarType>(value.toScalarType());
}

at::OptionalIntArrayRef DimsArg(const c10::IValue& value, std::vector<int64_t>& storage) {
  if (value.isNone()) return c10::nullopt;
  storage = value.toIntVector();
  return at::IntArrayRef(storage);
}

// at::cpu::mean_out for float and double results, as ATen 1.13 computes it
// (a sum, then a division by the number of elements reduced) without the
// two small tensors its division by a Scalar allocates.
void MeanOut(at::Tensor& out, const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
             c10::optional<at::ScalarType> dtype) {
  const at::ScalarType result = dtype.value_or(self.scalar_type());
  if (result != at::kFloat && result != at::kDouble) {
    at::cpu::mean_out(out, self, dim, keepdim, dtype);
    return;
  }
  int64_t reduced = 1;
  if (!dim.has_value() || dim->empty() || self.dim() == 0) {
    reduced = self.numel();
  } else {
    for (int64_t d : *dim) reduced *= self.size(d);
  }
  at::cpu::sum_out(out, self, dim, keepdim, result);
  if (!out.is_contiguous()) {
    out.div_(reduced);
    return;
  }
  AT_DISPATCH_FLOATING_TYPES(result, "mean", [&] {
    scalar_t* data = out.data_ptr<scalar_t>();
    const auto divisor = static_cast<scalar_t>(reduced);
    for (int64_t i = 0, n = out.numel(); i < n; ++i) data[i] = data[i] / divisor;
  });
}

void RegisterSums(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::sum", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const auto dtype = DtypeArg(io.Input(1));
    WriteOutput(
        io, 0, SumResult(self.scalar_type(), io.Input(1)), [&] { return at::sum(self, dtype); },
        [&](at::Tensor& out) { at::cpu::sum_out(out, self, at::IntArrayRef{}, false, dtype); });
  }));
  registry.Add(OutVariant("aten::sum", "dim_IntList", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    std::vector<int64_t> dims;
    const at::OptionalIntArrayRef dim = DimsArg(io.Input(1), dims);
    const bool keepdim = io.Input(2).toBool();
    const auto dtype = DtypeArg(io.Input(3));
    WriteOutput(
        io, 0, SumResult(self.scalar_type(), io.Input(3)),
        [&] { return at::sum(self, dim, keepdim, dtype); },
        [&](at::Tensor& out) { at::cpu::sum_out(out, self, dim, keepdim, dtype); });
  }));
  registry.Add(OutVariant("aten::mean", "dim", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    std::vector<int64_t> dims;
    const at::OptionalIntArrayRef dim = DimsArg(io.Input(1), dims);
    const bool keepdim = io.Input(2).toBool();
    const auto dtype = DtypeArg(io.Input(3));
    WriteOutput(
        io, 0, dtype.value_or(self.scalar_type()),
        [&] { return at::mean(self, dim, keepdim, dtype); },
        [&](at::Tensor& out) { MeanOut(out, self, dim, keepdim, dtype); });
  }));
  registry.Add(OutVariant("aten::mean", "", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const auto dtype = DtypeArg(io.Input(1));
    WriteOutput(
        io, 0, dtype.value_or(self.scalar_type()), [&] { return at::mean(self, dtype); },
        [&](at::Tensor& out) { MeanOut(out, self, at::IntArrayRef{}, false, dtype); });
  }));
  registry.Add(OutVariant("aten::prod", "dim_int", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const int64_t dim = io.Input(1).toInt();
    const bool keepdim = io.Input(2).toBool();
    const auto dtype = DtypeArg(io.Input(3));
    WriteOutput(
        io, 0, SumResult(self.scalar_type(), io.Input(3)),
        [&] { return at::prod(self, dim, keepdim, dtype); },
        [&](at::Tensor& out) { at::cpu::prod_out(out, self, dim, keepdim, dtype); });
  }));
  using ScanFn = at::Tensor (*)(const at::Tensor&, int64_t, c10::optional<at::ScalarType>);
  using ScanOutFn =
      at::Tensor& (*)(at::Tensor&, const at::Tensor&, int64_t, c10::optional<at::ScalarType>);
  auto scan = [&registry](const char* name, ScanFn fn, ScanOutFn out_fn) {
    registry.Add(OutVariant(name, "", [fn, out_fn](NodeIO& io) {
      const at::Tensor& self = TensorArg(io, 0);
      const int64_t dim = io.Input(1).toInt();
      const auto dtype = DtypeArg(io.Input(2));
      WriteOutput(
          io, 0, SumResult(self.scalar_type(), io.Input(2)), [&] { return fn(self, dim, dtype); },
          [&](at::Tensor& out) { out_fn(out, self, dim, dtype); });
    }));
  };
  scan(
      "aten::cumsum",
      [](const at::Tensor& s, int64_t d, c10::optional<at::ScalarType> t) {
        return at::cumsum(s, d, t);
      },
      [](at::Tensor& o, const at::Tensor& s, int64_t d, c10::optional<at::ScalarType> t)
          -> at::Tensor& { return at::cpu::cumsum_out(o, s, d, t); });
  scan(
      "aten::cumprod",
      [](const at::Tensor& s, int64_t d, c10::optional<at::ScalarType> t) {
        return at::cumprod(s, d, t);
      },
      [](at::Tensor& o, const at::Tensor& s, int64_t d, c10::optional<at::ScalarType> t)
          -> at::Tensor& { return at::cpu::cumprod_out(o, s, d, t); });
}

void RegisterExtremes(KernelRegistry& registry) {
  using DimsFn = at::Tensor (*)(const at::Tensor&, at::IntArrayRef, bool);
  using DimsOutFn = at::Tensor& (*)(at::Tensor&, const at::Tensor&, at::IntArrayRef, bool);
  auto over_dims = [&registry](const char* name, bool float_result, DimsFn fn, DimsOutFn out_fn) {
    registry.Add(OutVariant(name, "", [float_result, fn, out_fn](NodeIO& io) {
      const at::Tensor& self = TensorArg(io, 0);
      const std::vector<int64_t> dims = io.Input(1).toIntVector();
      const bool keepdim = io.Input(2).toBool();
      const at::ScalarType dtype =
          float_result ? FloatResult(self.scalar_type()) : self.scalar_type();
      WriteOutput(
          io, 0, dtype, [&] { return fn(self, dims, keepdim); },
          [&](at::Tensor& out) { out_fn(out, self, dims, keepdim); });
    }));
  };
  over_dims(
      "aten::amax", false,
      [](const at::Tensor& s, at::IntArrayRef d, bool k) { return at::amax(s, d, k); },
      [](at::Tensor& o, const at::Tensor& s, at::IntArrayRef d, bool k) -> at::Tensor& {
        return at::cpu::amax_out(o, s, d, k);
      });
  over_dims(
      "aten::amin", false,
      [](const at::Tensor& s, at::IntArrayRef d, bool k) { return at::amin(s, d, k); },
      [](at::Tensor& o, const at::Tensor& s, at::IntArrayRef d, bool k) -> at::Tensor& {
        return at::cpu::amin_out(o, s, d, k);
      });
  over_dims(
      "aten::logsumexp", true,
      [](const at::Tensor& s, at::IntArrayRef d, bool k) { return at::logsumexp(s, d, k); },
      [](at::Tensor& o, const at::Tensor& s, at::IntArrayRef d, bool k) -> at::Tensor& {
        return at::logsumexp_out(o, s, d, k);
      });

  // max / min of all elements: amax / amin over every dim compute the same.
  for (const bool is_max : {true, false}) {
    registry.Add(OutVariant(is_max ? "aten::max" : "aten::min", "", [is_max](NodeIO& io) {
      const at::Tensor& self = TensorArg(io, 0);
      WriteOutput(
          io, 0, self.scalar_type(), [&] { return is_max ? at::max(self) : at::min(self); },
          [&](at::Tensor& out) {
            is_max ? at::cpu::amax_out(out, self, at::IntArrayRef{}, false)
                   : at::cpu::amin_out(out, self, at::IntArrayRef{}, false);
          });
    }));
  }
  // max.dim / min.dim: values and indices.
  for (const bool is_max : {true, false}) {
    registry.Add(OutVariant(is_max ? "aten::max" : "aten::min", "dim", [is_max](NodeIO& io) {
      const at::Tensor& self = TensorArg(io, 0);
      const int64_t dim = io.Input(1).toInt();
      const bool keepdim = io.Input(2).toBool();
      // Each output reused if the runtime owns it (one may be returned).
      at::Tensor& values = ReusableOrNewOutput(io, 0, self.scalar_type());
      at::Tensor& indices = ReusableOrNewOutput(io, 1, at::kLong);
      at::AutoDispatchBelowADInplaceOrView below_autograd;
      is_max ? at::cpu::max_out(values, indices, self, dim, keepdim)
             : at::cpu::min_out(values, indices, self, dim, keepdim);
    }));
  }
  for (const bool is_max : {true, false}) {
    registry.Add(OutVariant(is_max ? "aten::argmax" : "aten::argmin", "", [is_max](NodeIO& io) {
      const at::Tensor& self = TensorArg(io, 0);
      const auto dim = io.Input(1).toOptional<int64_t>();
      const bool keepdim = io.Input(2).toBool();
      WriteOutput(
          io, 0, at::kLong,
          [&] { return is_max ? at::argmax(self, dim, keepdim) : at::argmin(self, dim, keepdim); },
          [&](at::Tensor& out) {
            if (ops::ArgExtremumServes(self, dim)) {
              ops::ArgExtremumOut(self, dim, keepdim, is_max, out);
            } else {
              is_max ? at::cpu::argmax_out(out, self, dim, keepdim)
                     : at::cpu::argmin_out(out, self, dim, keepdim);
            }
          });
    }));
  }
}

void RegisterStatistics(KernelRegistry& registry) {
  registry.Add(OutVariant("aten::norm", "ScalarOpt_dim", [](NodeIO& io) {
    const at::Tensor& self = TensorArg(io, 0);
    const auto p = io.Input(1).toOptional<at::Scalar>();
    const std::vector<int64_t> dims = io.Input(2).toIntVector();
    const bool keepdim = io.Input(3).toBool();
    WriteOutput(
        io, 0, self.scalar_type(), [&] { return at::norm(self, p, dims, keepdim); },
        [&](at::Tensor& out) { at::cpu::norm_out(out, self, p, dims, keepdim); });
  }));
  for (const bool is_var : {true, false}) {
    registry.Add(OutVariant(is_var ? "aten::var" : "aten::std", "dim", [is_var](NodeIO& io) {
      const at::Tensor& self = TensorArg(io, 0);
      std::vector<int64_t> dims;
      const at::OptionalIntArrayRef dim = DimsArg(io.Input(1), dims);
      const bool unbiased = io.Input(2).toBool();
      const bool keepdim = io.Input(3).toBool();
      WriteOutput(
          io, 0, self.scalar_type(),
          [&] {
            return is_var ? at::var(self, dim, unbiased, keepdim)
                          : at::std(self, dim, unbiased, keepdim);
          },
          [&](at::Tensor& out) {
            is_var ? at::cpu::var_out(out, self, dim, unbiased, keepdim)
                   : at::cpu::std_out(out, self, dim, unbiased, keepdim);
          });
    }));
  }
  // any/all keep uint8 as uint8 and give bool otherwise.
  for (const bool is_any : {true, false}) {
    const char* name = is_any ? "aten::any" : "aten::all";
    registry.Add(OutVariant(name, "dim", [is_any](NodeIO& io) {
      const at::Tensor& self = TensorArg(io, 0);
      const int64_t dim = io.Input(1).toInt();
      const bool keepdim = io.Input(2).toBool();
      const at::ScalarType dtype = self.scalar_type() == at::kByte ? at::kByte : at::kBool;
      WriteOutput(
          io, 0, dtype,
          [&] { return is_any ? at::any(self, dim, keepdim) : at::all(self, dim, keepdim); },
          [&](at::Tensor& out) {
            is_any ? at::cpu::any_out(out, self, dim, keepdim)
                   : at::cpu::all_out(out, self, dim, keepdim);
          });
    }));
    registry.Add(OutVariant(name, "", [is_any](NodeIO& io) {
      const at::Tensor& self = TensorArg(io, 0);
      const at::ScalarType dtype = self.scalar_type() == at::kByte ? at::kByte : at::kBool;
      WriteOutput(
          io, 0, dtype, [&] { return is_any ? at::any(self) : at::all(self); },
          [&](at::Tensor& out) {
            is_any ? at::cpu::any_out(out, self) : at::cpu::all_out(out, self);
          });
    }));
  }
}

}  // namespace

void RegisterOutReductionKernels(KernelRegistry& registry) {
  RegisterSums(registry);
  RegisterExtremes(registry);
  RegisterStatistics(registry);
}

}  // namespace static_runtime
