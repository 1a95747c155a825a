// Native kernels for the scalar glue of real models: tensor metadata (size,
// dim, numel, len, dtype, device), conversions (Int, Float, Bool,
// NumToTensor, a 0-dim tensor used as a number), identity tests, int/float
// arithmetic and comparisons, range loops' trip count and index,
// Uninitialized and RaiseException. Semantics follow the JIT's own operators
// (Python's rules for floor division and modulo).
#include <cmath>
#include <stdexcept>

#include "ATen/ATen.h"
#include "ATen/ScalarOps.h"
#include "absl/strings/str_cat.h"
#include "ops/core/registry.h"
#include "torch/csrc/jit/runtime/jit_exception.h"

namespace static_runtime {
namespace {

using torch::jit::Node;

// Registers `name.<overload>(A a, B b) -> R` for a binary function `f`.
template <typename A, typename B, typename R, typename F>
void RegisterBinary(KernelRegistry& registry, const char* name, const char* overload, F f) {
  registry.Add(Native(name, overload, [f](NodeIO& io) {
    io.Output(0) = static_cast<R>(f(io.Input(0).to<A>(), io.Input(1).to<B>()));
  }));
}

// Registers the .int, .float, .int_float and .float_int overloads; `R` is
// the result for two ints (float results for mixed operands are implied).
template <typename IntResult, typename FloatResult, typename F>
void RegisterNumeric(KernelRegistry& registry, const char* name, F f) {
  RegisterBinary<int64_t, int64_t, IntResult>(registry, name, "int", f);
  RegisterBinary<double, double, FloatResult>(registry, name, "float", f);
  RegisterBinary<int64_t, double, FloatResult>(registry, name, "int_float", f);
  RegisterBinary<double, int64_t, FloatResult>(registry, name, "float_int", f);
}

int64_t FloorDivide(int64_t a, int64_t b) {
  TORCH_CHECK(b != 0, "ZeroDivisionError: integer division or modulo by zero");
  int64_t quotient = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --quotient;
  return quotient;
}

int64_t PythonModulo(int64_t a, int64_t b) {
  TORCH_CHECK(b != 0, "ZeroDivisionError: integer division or modulo by zero");
  return (b + (a % b)) % b;
}

// prim::min and prim::max of a list (`overload` self_int or self_float), as
// the JIT compares: an element replaces the extreme only if strictly smaller
// (larger), so a NaN never does.
template <typename T>
void RegisterListExtremes(KernelRegistry& registry, const char* overload) {
  auto extreme = [](const char* name, auto better) {
    return [name, better](NodeIO& io) {
      const c10::List<T> list = io.Input(0).to<c10::List<T>>();
      if (list.empty()) throw std::runtime_error(absl::StrCat(name, "() arg is an empty sequence"));
      T result = list[0];
      for (size_t i = 1; i < list.size(); ++i) {
        const T element = list[i];
        if (better(element, result)) result = element;
      }
      io.Output(0) = result;
    };
  };
  registry.Add(Native("prim::min", overload, extreme("min", [](T a, T b) { return a < b; })));
  registry.Add(Native("prim::max", overload, extreme("max", [](T a, T b) { return a > b; })));
}

// Python's `a ** b` on numbers, as the JIT computes it: in doubles, and an
// error for zero to a negative power (Python's ZeroDivisionError).
double ScalarPow(double a, double b) {
  TORCH_CHECK(!(a == 0.0 && b < 0.0), "0.0 cannot be raised to a negative power");
  return std::pow(a, b);
}

void RegisterArithmetic(KernelRegistry& registry) {
  RegisterNumeric<int64_t, double>(registry, "aten::add", [](auto a, auto b) { return a + b; });
  RegisterNumeric<int64_t, double>(registry, "aten::sub", [](auto a, auto b) { return a - b; });
  RegisterNumeric<int64_t, double>(registry, "aten::mul", [](auto a, auto b) { return a * b; });
  RegisterBinary<int64_t, int64_t, double>(registry, "aten::div", "int", [](int64_t a, int64_t b) {
    return static_cast<double>(a) / static_cast<double>(b);
  });
  RegisterBinary<double, double, double>(registry, "aten::div", "float",
                                         [](double a, double b) { return a / b; });
  RegisterBinary<int64_t, int64_t, int64_t>(registry, "aten::floordiv", "int", FloorDivide);
  RegisterBinary<int64_t, int64_t, int64_t>(registry, "aten::remainder", "int", PythonModulo);
  RegisterBinary<int64_t, int64_t, int64_t>(registry, "prim::max", "int",
                                            [](int64_t a, int64_t b) { return std::max(a, b); });
  RegisterBinary<int64_t, int64_t, int64_t>(registry, "prim::min", "int",
                                            [](int64_t a, int64_t b) { return std::min(a, b); });
  RegisterBinary<int64_t, int64_t, double>(registry, "aten::pow", "int", ScalarPow);
  RegisterBinary<double, double, double>(registry, "aten::pow", "float", ScalarPow);
  RegisterBinary<int64_t, double, double>(registry, "aten::pow", "int_float", ScalarPow);
  RegisterBinary<double, int64_t, double>(registry, "aten::pow", "float_int", ScalarPow);
  RegisterListExtremes<int64_t>(registry, "self_int");
  RegisterListExtremes<double>(registry, "self_float");
  registry.Add(Native("aten::sqrt", "int", [](NodeIO& io) {
    io.Output(0) = std::sqrt(static_cast<double>(io.Input(0).toInt()));
  }));
  registry.Add(Native("aten::sqrt", "float",
                      [](NodeIO& io) { io.Output(0) = std::sqrt(io.Input(0).toDouble()); }));
  // ceil/floor of a float give an int (math.ceil, math.floor); of an int, itself.
  registry.Add(Native("aten::ceil", "float", [](NodeIO& io) {
    io.Output(0) = static_cast<int64_t>(std::ceil(io.Input(0).toDouble()));
  }));
  registry.Add(Native("aten::floor", "float", [](NodeIO& io) {
    io.Output(0) = static_cast<int64_t>(std::floor(io.Input(0).toDouble()));
  }));
  for (const char* name : {"aten::ceil", "aten::floor"}) {
    registry.Add(Native(name, "int", [](NodeIO& io) { io.Output(0) = io.Input(0).toInt(); }));
  }
  registry.Add(Native("aten::neg", "int", [](NodeIO& io) { io.Output(0) = -io.Input(0).toInt(); }));
  registry.Add(
      Native("aten::neg", "float", [](NodeIO& io) { io.Output(0) = -io.Input(0).toDouble(); }));
  registry.Add(Native("aten::neg", "Scalar", [](NodeIO& io) {
    const c10::IValue& a = io.Input(0);
    if (a.isInt()) {
      io.Output(0) = -a.toInt();
    } else if (a.isDouble()) {
      io.Output(0) = -a.toDouble();
    } else {
      io.Output(0) = -a.toComplexDouble();
    }
  }));
  // The loop helpers of `for i in range(lo, hi, step)`: the trip count and
  // the i of an iteration.
  registry.Add(Native("aten::__range_length", "", [](NodeIO& io) {
    const int64_t lo = io.Input(0).toInt(), hi = io.Input(1).toInt(), step = io.Input(2).toInt();
    if (step == 0) throw std::runtime_error("range() arg 3 must not be zero");
    int64_t length = 0;
    if (step > 0 && lo < hi) {
      length = 1 + (hi - 1 - lo) / step;
    } else if (step < 0 && lo > hi) {
      length = 1 + (lo - 1 - hi) / (0 - step);
    }
    io.Output(0) = length;
  }));
  registry.Add(Native("aten::__derive_index", "", [](NodeIO& io) {
    io.Output(0) = io.Input(1).toInt() + io.Input(0).toInt() * io.Input(2).toInt();
  }));
}

void RegisterComparisons(KernelRegistry& registry) {
  RegisterNumeric<bool, bool>(registry, "aten::eq", [](auto a, auto b) { return a == b; });
  RegisterNumeric<bool, bool>(registry, "aten::ne", [](auto a, auto b) { return a != b; });
  RegisterNumeric<bool, bool>(registry, "aten::lt", [](auto a, auto b) { return a < b; });
  RegisterNumeric<bool, bool>(registry, "aten::gt", [](auto a, auto b) { return a > b; });
  RegisterNumeric<bool, bool>(registry, "aten::le", [](auto a, auto b) { return a <= b; });
  RegisterNumeric<bool, bool>(registry, "aten::ge", [](auto a, auto b) { return a >= b; });
  RegisterBinary<bool, bool, bool>(registry, "aten::eq", "bool",
                                   [](bool a, bool b) { return a == b; });
  RegisterBinary<bool, bool, bool>(registry, "aten::ne", "bool",
                                   [](bool a, bool b) { return a != b; });
  RegisterBinary<bool, bool, bool>(registry, "aten::__and__", "bool",
                                   [](bool a, bool b) { return a && b; });
  RegisterBinary<bool, bool, bool>(registry, "aten::__or__", "bool",
                                   [](bool a, bool b) { return a || b; });
  registry.Add(
      Native("aten::__not__", "", [](NodeIO& io) { io.Output(0) = !io.Input(0).toBool(); }));
  registry.Add(
      Native("aten::__is__", "", [](NodeIO& io) { io.Output(0) = io.Input(0).is(io.Input(1)); }));
  registry.Add(Native("aten::__isnot__", "",
                      [](NodeIO& io) { io.Output(0) = !io.Input(0).is(io.Input(1)); }));
}

void RegisterTensorMetadata(KernelRegistry& registry) {
  registry.Add(Native("aten::size", "", [](NodeIO& io) {
    io.Output(0) = c10::List<int64_t>(io.Input(0).toTensor().sizes());
  }));
  registry.Add(Native("aten::size", "int", [](NodeIO& io) {
    io.Output(0) = io.Input(0).toTensor().size(io.Input(1).toInt());
  }));
  registry.Add(
      Native("aten::dim", "", [](NodeIO& io) { io.Output(0) = io.Input(0).toTensor().dim(); }));
  registry.Add(
      Native("aten::numel", "", [](NodeIO& io) { io.Output(0) = io.Input(0).toTensor().numel(); }));
  registry.Add(Native("aten::len", "Tensor", [](NodeIO& io) {
    const at::Tensor& t = io.Input(0).toTensor();
    TORCH_CHECK(t.dim() > 0, "len() of a 0-d tensor");
    io.Output(0) = t.sizes()[0];
  }));
  registry.Add(Native("prim::dtype", "", [](NodeIO& io) {
    io.Output(0) = static_cast<int64_t>(io.Input(0).toTensor().scalar_type());
  }));
  registry.Add(Native("prim::device", "",
                      [](NodeIO& io) { io.Output(0) = io.Input(0).toTensor().device(); }));
}

// The JIT's checks of a tensor used as a number, with its messages.
void CheckImplicitTensorToNumber(const at::Tensor& a, bool to_int) {
  if (a.requires_grad()) {
    throw std::runtime_error("Cannot input a tensor that requires grad as a scalar argument");
  }
  if (a.dim() != 0) {
    throw std::runtime_error(
        "Cannot input a tensor of dimension other than 0 as a scalar argument");
  }
  if (to_int && !at::isIntegralType(a.scalar_type(), /*includeBool=*/false)) {
    throw std::runtime_error(absl::StrCat("Cannot input a tensor of type ",
                                          c10::toString(a.scalar_type()),
                                          " as an integral argument"));
  }
}

void RegisterConversions(KernelRegistry& registry) {
  registry.Add(Native("aten::Int", "Tensor",
                      [](NodeIO& io) { io.Output(0) = io.Input(0).toTensor().item<int64_t>(); }));
  registry.Add(Native("aten::Int", "bool", [](NodeIO& io) {
    io.Output(0) = static_cast<int64_t>(io.Input(0).toBool());
  }));
  registry.Add(Native("aten::Int", "float", [](NodeIO& io) {
    io.Output(0) = static_cast<int64_t>(io.Input(0).toDouble());
  }));
  registry.Add(Native("aten::Int", "Scalar", [](NodeIO& io) {
    const c10::IValue& a = io.Input(0);
    io.Output(0) = a.isInt() ? a.toInt() : static_cast<int64_t>(a.toScalar().toDouble());
  }));
  registry.Add(Native("aten::Float", "Scalar",
                      [](NodeIO& io) { io.Output(0) = io.Input(0).toScalar().toDouble(); }));
  registry.Add(Native("aten::Float", "Tensor",
                      [](NodeIO& io) { io.Output(0) = io.Input(0).toTensor().item<double>(); }));
  registry.Add(Native("aten::Float", "int",
                      [](NodeIO& io) { io.Output(0) = static_cast<double>(io.Input(0).toInt()); }));
  registry.Add(Native("aten::Float", "bool",
                      [](NodeIO& io) { io.Output(0) = io.Input(0).toBool() ? 1.0 : 0.0; }));
  registry.Add(Native("aten::Bool", "Tensor",
                      [](NodeIO& io) { io.Output(0) = io.Input(0).toTensor().is_nonzero(); }));
  registry.Add(
      Native("aten::Bool", "int", [](NodeIO& io) { io.Output(0) = io.Input(0).toInt() != 0; }));
  registry.Add(Native("aten::Bool", "float",
                      [](NodeIO& io) { io.Output(0) = io.Input(0).toDouble() != 0.0; }));
  // A tensor where a number is expected (`range(t)`, a size from a tensor):
  // the JIT's checks, then the number.
  registry.Add(Native("aten::IntImplicit", "", [](NodeIO& io) {
    const at::Tensor& a = io.Input(0).toTensor();
    CheckImplicitTensorToNumber(a, /*to_int=*/true);
    io.Output(0) = a.item<int64_t>();
  }));
  registry.Add(Native("aten::FloatImplicit", "", [](NodeIO& io) {
    const at::Tensor& a = io.Input(0).toTensor();
    CheckImplicitTensorToNumber(a, /*to_int=*/false);
    io.Output(0) = a.item<double>();
  }));
  registry.Add(Native("aten::ScalarImplicit", "", [](NodeIO& io) {
    const at::Tensor& a = io.Input(0).toTensor();
    CheckImplicitTensorToNumber(a, /*to_int=*/false);
    io.Output(0) = a.item();
  }));
  registry.Add(Native("prim::NumToTensor", "Scalar", [](NodeIO& io) {
    io.Output(0) = at::scalar_to_tensor(io.Input(0).toScalar());
  }));
  registry.Add(Native("prim::NumToTensor", "bool", [](NodeIO& io) {
    io.Output(0) = at::scalar_to_tensor(io.Input(0).toBool());
  }));
}

void RegisterSpecial(KernelRegistry& registry) {
  registry.Add(Native("prim::Uninitialized", "",
                      [](NodeIO& io) { io.Output(0) = c10::IValue::uninitialized(); }));
  // The model's own error, as the JIT's operator throws it: the message
  // alone, the class ("builtins.Exception", or none) beside it (the runtime
  // adds which node raised it to its Status, not to the exception).
  registry.Add(Native("prim::RaiseException", "", [](NodeIO& io) {
    const c10::IValue& cls = io.Input(1);
    throw torch::jit::JITException(
        io.Input(0).toStringRef(),
        cls.isNone() ? c10::nullopt : c10::make_optional(cls.toStringRef()));
  }));
}

}  // namespace

void RegisterNativeScalarsKernels(KernelRegistry& registry) {
  RegisterArithmetic(registry);
  RegisterComparisons(registry);
  RegisterTensorMetadata(registry);
  RegisterConversions(registry);
  RegisterSpecial(registry);
}

}  // namespace static_runtime
