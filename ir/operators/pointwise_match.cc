#include "ir/operators/pointwise_match.h"

#include <string>
#include <utility>
#include <vector>

#include "ir/operators/operators.h"

namespace static_runtime {
namespace {

using torch::jit::Node;

// What a fusible op needs of its constant arguments.
enum class Needs {
  kNothing,
  kAlphaOne,     // input 2 (alpha) the number 1
  kOneNumber,    // input 1 a number (leaky_relu's slope)
  kTwoNumbers,   // inputs 1 and 2 numbers (bounds)
  kLowerBound,   // input 1 a number, input 2 None (clamp's min alone)
  kUpperBound,   // input 1 None, input 2 a number (clamp's max alone)
  kApproximate,  // input 1 the string given (gelu's approximate)
  kConversion,   // input 1 the schema's dtype, no memory format
};

struct FusibleSchema {
  const char* schema;
  PointwiseOp op;
  Needs needs = Needs::kNothing;
  const char* approximate = nullptr;
  at::ScalarType dtype = at::kFloat;  // of a conversion
};

// aten::to.dtype, and the same op after UseMaybeCopyTo (passes/maybe_copy_to.h).
constexpr const char* kConversionSchemas[] = {
    "aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, "
    "bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
    "static_runtime::maybe_copy_to.dtype(Tensor(a) self, ScalarType dtype, "
    "bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
};

const std::vector<FusibleSchema>& FusibleSchemas() {
  static const std::vector<FusibleSchema> kSchemas = [] {
    std::vector<FusibleSchema> schemas = {
        {"aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
         PointwiseOp::kAdd, Needs::kAlphaOne},
        {"aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", PointwiseOp::kAdd,
         Needs::kAlphaOne},
        {"aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
         PointwiseOp::kSub, Needs::kAlphaOne},
        {"aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", PointwiseOp::kSub,
         Needs::kAlphaOne},
        {"aten::mul.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kMul},
        {"aten::mul.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kMul},
        {"aten::div.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kDiv},
        {"aten::div.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kDiv},
        {"aten::gt.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kGt},
        {"aten::gt.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kGt},
        {"aten::lt.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kLt},
        {"aten::lt.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kLt},
        {"aten::ge.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kGe},
        {"aten::ge.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kGe},
        {"aten::le.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kLe},
        {"aten::le.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kLe},
        {"aten::eq.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kEq},
        {"aten::eq.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kEq},
        {"aten::ne.Tensor(Tensor self, Tensor other) -> Tensor", PointwiseOp::kNe},
        {"aten::ne.Scalar(Tensor self, Scalar other) -> Tensor", PointwiseOp::kNe},
        {"aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
         PointwiseOp::kWhere},
        {"aten::where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor",
         PointwiseOp::kWhere},
        {"aten::where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor",
         PointwiseOp::kWhere},
        {"aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
         PointwiseOp::kMaskedFill},
        {"aten::neg(Tensor self) -> Tensor", PointwiseOp::kNeg},
        {"aten::abs(Tensor self) -> Tensor", PointwiseOp::kAbs},
        {"aten::relu(Tensor self) -> Tensor", PointwiseOp::kRelu},
        {"aten::sigmoid(Tensor self) -> Tensor", PointwiseOp::kSigmoid},
        {"aten::tanh(Tensor self) -> Tensor", PointwiseOp::kTanh},
        {"aten::exp(Tensor self) -> Tensor", PointwiseOp::kExp},
        {"aten::log(Tensor self) -> Tensor", PointwiseOp::kLog},
        {"aten::log1p(Tensor self) -> Tensor", PointwiseOp::kLog1p},
        {"aten::sqrt(Tensor self) -> Tensor", PointwiseOp::kSqrt},
        {"aten::rsqrt(Tensor self) -> Tensor", PointwiseOp::kRsqrt},
        {"aten::silu(Tensor self) -> Tensor", PointwiseOp::kSilu},
        {"aten::gelu(Tensor self, *, str approximate='none') -> Tensor", PointwiseOp::kGelu,
         Needs::kApproximate, "none"},
        {"aten::gelu(Tensor self, *, str approximate='none') -> Tensor", PointwiseOp::kGeluTanh,
         Needs::kApproximate, "tanh"},
        {"aten::hardswish(Tensor self) -> Tensor", PointwiseOp::kHardswish},
        {"aten::hardsigmoid(Tensor self) -> Tensor", PointwiseOp::kHardsigmoid},
        {"aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
         PointwiseOp::kLeakyRelu, Needs::kOneNumber},
        {"aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
         PointwiseOp::kClamp, Needs::kTwoNumbers},
        {"aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
         PointwiseOp::kClamp, Needs::kTwoNumbers},
        {"aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
         PointwiseOp::kClampMin, Needs::kLowerBound},
        {"aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
         PointwiseOp::kClampMax, Needs::kUpperBound},
        {"aten::clamp_min(Tensor self, Scalar min) -> Tensor", PointwiseOp::kClampMin,
         Needs::kOneNumber},
        {"aten::clamp_max(Tensor self, Scalar max) -> Tensor", PointwiseOp::kClampMax,
         Needs::kOneNumber},
    };
    for (const char* conversion : kConversionSchemas) {
      for (const auto& [op, dtype] :
           {std::pair{PointwiseOp::kToFloat, at::kFloat},
            std::pair{PointwiseOp::kToBool, at::kBool}, std::pair{PointwiseOp::kToInt32, at::kInt},
            std::pair{PointwiseOp::kToInt64, at::kLong}}) {
        schemas.push_back({conversion, op, Needs::kConversion, nullptr, dtype});
      }
    }
    return schemas;
  }();
  return kSchemas;
}

// The result type of a tensor `op` gives whatever its operands (bool for a
// comparison, the target of a conversion), if it is known without them.
c10::optional<ElementType> StaticResultType(PointwiseOp op) {
  if (IsComparison(op) || IsConversion(op)) return ResultTypeOf(op);
  return c10::nullopt;
}

// Why `node`'s constant arguments (or, for a conversion, its input) do not
// suit `schema` ("" when they do).
std::string WhyNotSuited(const Node* node, const FusibleSchema& schema,
                         const ConstantOf& constant_of) {
  auto number = [&](size_t i) {
    const c10::optional<c10::IValue> constant = constant_of(node->input(i));
    return constant && (constant->isDouble() || constant->isInt());
  };
  auto none = [&](size_t i) {
    const c10::optional<c10::IValue> constant = constant_of(node->input(i));
    return constant && constant->isNone();
  };
  switch (schema.needs) {
    case Needs::kNothing:
      return "";
    case Needs::kAlphaOne: {
      const c10::optional<c10::IValue> alpha = constant_of(node->input(2));
      const bool one = alpha && ((alpha->isInt() && alpha->toInt() == 1) ||
                                 (alpha->isDouble() && alpha->toDouble() == 1.0));
      return one ? "" : "its alpha is not the constant 1";
    }
    case Needs::kOneNumber:
      return number(1) ? "" : "its parameter is not a constant number";
    case Needs::kTwoNumbers:
      return number(1) && number(2) ? "" : "its bounds are not two constant numbers";
    case Needs::kLowerBound:
      return number(1) && none(2) ? "" : "its bounds are not a constant number and None";
    case Needs::kUpperBound:
      return none(1) && number(2) ? "" : "its bounds are not None and a constant number";
    case Needs::kApproximate: {
      const c10::optional<c10::IValue> approximate = constant_of(node->input(1));
      return approximate && approximate->isString() &&
                     approximate->toStringRef() == schema.approximate
                 ? ""
                 : "its approximate is not a constant 'none' or 'tanh'";
    }
    case Needs::kConversion: {
      const c10::optional<c10::IValue> dtype = constant_of(node->input(1));
      const c10::optional<c10::IValue> format = constant_of(node->input(4));
      if (!dtype || !dtype->isInt() || dtype->toInt() != static_cast<int64_t>(schema.dtype) ||
          !format || !format->isNone()) {
        return "it is not a conversion to float, bool, int or long without a memory format";
      }
      // Only a conversion that surely converts: of a tensor of its dtype,
      // `to` returns its input itself, which a fused group would not.
      std::string why;
      const c10::optional<PointwiseOp> producer =
          MatchPointwiseOp(node->input(0)->node(), constant_of, &why);
      const c10::optional<ElementType> from = producer ? StaticResultType(*producer) : c10::nullopt;
      return from && *from != ResultTypeOf(schema.op)
                 ? ""
                 : "it does not convert a comparison's or a conversion's result of another dtype";
    }
  }
  return "";
}

}  // namespace

c10::optional<PointwiseOp> MatchPointwiseOp(const Node* node, const ConstantOf& constant_of,
                                            std::string* why) {
  if (node->outputs().size() != 1 || node->output()->type()->kind() != c10::TypeKind::TensorType) {
    *why = "it does not return one tensor";
    return c10::nullopt;
  }
  *why = "not an elementwise op the fusion handles";
  for (const FusibleSchema& schema : FusibleSchemas()) {
    if (!node->matches(schema.schema)) continue;
    std::string reason = WhyNotSuited(node, schema, constant_of);
    if (reason.empty()) {
      why->clear();
      return schema.op;
    }
    *why = std::move(reason);
  }
  return c10::nullopt;
}

c10::optional<PointwiseOp> PointwiseOpOf(const Node* node, const ConstantOf& constant_of) {
  std::string why;
  return MatchPointwiseOp(node, constant_of, &why);
}

}  // namespace static_runtime
