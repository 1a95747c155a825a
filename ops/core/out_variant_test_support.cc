#include "ops/core/out_variant_test_support.h"

#include <sstream>
#include <thread>
#include <utility>

#include "ATen/CPUGeneratorImpl.h"
#include "absl/strings/str_cat.h"
#include "errors/exception_message.h"
#include "gtest/gtest.h"
#include "ir/operators/operators.h"
#include "rapidcheck.h"
#include "torch/csrc/jit/frontend/function_schema_parser.h"
#include "torch/csrc/jit/ir/constants.h"
#include "torch/csrc/jit/runtime/operator.h"

namespace static_runtime {
namespace testing {

SingleNode MakeNode(const std::string& op, const std::string& overload,
                    const std::vector<c10::IValue>& inputs, size_t num_outputs) {
  ops::EnsureOperatorsRegistered();
  SingleNode result;
  result.graph = std::make_shared<torch::jit::Graph>();
  c10::optional<c10::FunctionSchema> schema;
  if (op.find('(') != std::string::npos) {
    schema = torch::jit::parseSchema(op);
  } else {
    for (const auto& candidate : torch::jit::getAllOperatorsFor(c10::Symbol::fromQualString(op))) {
      if (candidate->schema().overload_name() == overload) schema = candidate->schema();
    }
  }
  const bool vararg = !schema || schema->is_vararg();
  const std::string name = schema ? schema->name() : op;
  std::vector<torch::jit::Value*> node_inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    c10::TypePtr type = vararg ? inputs[i].type() : schema->arguments().at(i).type();
    node_inputs.push_back(result.graph->addInput()->setType(type));
  }
  const size_t outputs = vararg ? num_outputs : schema->returns().size();
  result.node = result.graph->create(c10::Symbol::fromQualString(name), node_inputs, outputs);
  result.graph->insertNode(result.node);
  for (torch::jit::Value* output : result.node->outputs()) {
    output->setType(c10::TensorType::get());
    result.graph->registerOutput(output);
  }
  if (!vararg) {
    const c10::FunctionSchema* resolved = result.node->maybeSchema();
    TORCH_CHECK(resolved != nullptr && *resolved == *schema, "the node for ", op, " resolves to ",
                resolved ? c10::toString(*resolved) : "nothing");
  }
  return result;
}

std::string Slots::Run(const Kernel& kernel, const std::vector<c10::IValue>& inputs) {
  std::vector<c10::IValue> outputs(values_.begin() + num_inputs_, values_.end());
  if (outputs.empty()) outputs.resize(num_outputs_);
  num_inputs_ = inputs.size();
  values_ = inputs;
  for (c10::IValue& output : outputs) values_.push_back(std::move(output));
  std::vector<ValueIndex> input_slots(num_inputs_);
  std::vector<ValueIndex> output_slots(num_outputs_);
  for (size_t i = 0; i < num_inputs_; ++i) input_slots[i] = i;
  for (size_t i = 0; i < num_outputs_; ++i) output_slots[i] = num_inputs_ + i;
  NodeIO io(values_.data(), input_slots, output_slots);
  try {
    kernel(io);
  } catch (const std::exception& e) {
    for (size_t i = 0; i < num_outputs_; ++i) values_[num_inputs_ + i] = c10::IValue();
    return ExceptionMessage(e);
  }
  // The inputs are the caller's; drop them so reuse checks see true counts.
  for (size_t i = 0; i < num_inputs_; ++i) values_[i] = c10::IValue();
  return "";
}

Draw::Draw()
    : generator_(at::detail::createCPUGenerator(*rc::gen::inRange<uint64_t>(0, 1u << 30))) {}

int64_t Draw::Int(int64_t low, int64_t high) { return *rc::gen::inRange(low, high + 1); }

bool Draw::Bool() { return *rc::gen::arbitrary<bool>(); }

std::vector<int64_t> Draw::Shape(int64_t rank, int64_t min_dim, int64_t max_dim) {
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) shape.push_back(Int(min_dim, max_dim));
  return shape;
}

at::Tensor Draw::ContiguousTensor(at::IntArrayRef shape, at::ScalarType dtype) {
  if (dtype == at::kBool) return at::randint(0, 2, shape, generator_).to(at::kBool);
  if (at::isIntegralType(dtype, false)) return at::randint(-6, 7, shape, generator_).to(dtype);
  return (at::randn(shape, generator_) * 2.0).to(dtype);
}

at::Tensor Draw::Tensor(at::IntArrayRef shape, at::ScalarType dtype) {
  if (shape.size() >= 2 && Int(0, 2) == 0) {
    // The same logical tensor stored transposed.
    std::vector<int64_t> swapped = shape.vec();
    std::swap(swapped[0], swapped[1]);
    return ContiguousTensor(swapped, dtype).transpose(0, 1);
  }
  if (!shape.empty() && Int(0, 2) == 0) {
    // Every other row of a taller tensor.
    std::vector<int64_t> taller = shape.vec();
    taller[0] *= 2;
    return ContiguousTensor(taller, dtype).slice(0, 0, c10::nullopt, 2);
  }
  return ContiguousTensor(shape, dtype);
}

at::Tensor Draw::Indices(at::IntArrayRef shape, int64_t low, int64_t high) {
  return at::randint(low, high, shape, generator_);
}

std::vector<int64_t> Draw::BroadcastableTo(at::IntArrayRef shape) {
  std::vector<int64_t> result;
  const size_t drop = shape.empty() ? 0 : Int(0, static_cast<int64_t>(shape.size()));
  for (size_t i = drop; i < shape.size(); ++i) result.push_back(Bool() ? shape[i] : 1);
  return result;
}

SingleNode BindOutVariant(const KernelRegistry& registry, std::shared_ptr<torch::jit::Graph> graph,
                          torch::jit::Node* node, bool expect_out_variant) {
  auto selected = registry.Find(node, /*allow_out_variants=*/true);
  if (expect_out_variant) {
    EXPECT_TRUE(selected.has_value() && selected->kind == NodeKind::kOutVariant)
        << "no out variant for " << *node;
  }
  return {std::move(graph), node, selected ? selected->kernel : Kernel()};
}

SingleNode MakeNodeOnConstants(const KernelRegistry& registry, c10::Symbol kind,
                               const std::vector<c10::IValue>& constants, bool expect_out_variant) {
  ops::EnsureOperatorsRegistered();
  auto graph = std::make_shared<torch::jit::Graph>();
  std::vector<torch::jit::Value*> inputs = {graph->addInput("x")->setType(c10::TensorType::get())};
  for (const c10::IValue& constant : constants) inputs.push_back(graph->insertConstant(constant));
  torch::jit::Node* node = graph->insertNode(graph->create(kind, inputs, 1));
  node->output()->setType(c10::TensorType::get());
  graph->registerOutput(node->output());
  return BindOutVariant(registry, std::move(graph), node, expect_out_variant);
}

std::string RejectsAsAten(const std::function<void()>& aten_call, Slots& slots,
                          const Kernel& kernel, const std::vector<c10::IValue>& inputs) {
  std::string aten_error;
  try {
    aten_call();
  } catch (const c10::Error& e) {
    aten_error = e.what_without_backtrace();
  }
  if (aten_error.empty()) return "ATen does not reject the input";
  const std::string error = slots.Run(kernel, inputs);
  if (error.empty()) return "ATen rejects the input, the kernel does not";
  if (error.find(aten_error.substr(0, 40)) == std::string::npos) {
    return absl::StrCat("the kernel's message \"", error, "\" lacks ATen's \"", aten_error, "\"");
  }
  return "";
}

std::vector<c10::IValue> InputsAfterConstants(const torch::jit::Node* node, const at::Tensor& x) {
  std::vector<c10::IValue> values = {x};
  for (size_t i = 1; i < node->inputs().size(); ++i) {
    values.push_back(*torch::jit::toIValue(node->input(i)));
  }
  return values;
}

std::string Difference(const c10::IValue& expected, const c10::IValue& actual) {
  if (!expected.isTensor() || !actual.isTensor()) {
    std::ostringstream text;
    text << expected << " vs " << actual;
    return expected.tagKind() == actual.tagKind() && expected == actual ? "" : text.str();
  }
  const at::Tensor& e = expected.toTensor();
  const at::Tensor& a = actual.toTensor();
  if (e.scalar_type() != a.scalar_type()) {
    return absl::StrCat("dtype ", c10::toString(e.scalar_type()), " vs ",
                        c10::toString(a.scalar_type()));
  }
  if (!e.sizes().equals(a.sizes())) {
    return absl::StrCat("shape ", c10::str(e.sizes()), " vs ", c10::str(a.sizes()));
  }
  if (e.numel() == 0) return "";
  bool same;
  if (at::isFloatingType(e.scalar_type())) {
    same = at::equal(e.isnan(), a.isnan()) &&
           at::equal(e.masked_fill(e.isnan(), 0), a.masked_fill(a.isnan(), 0));
  } else {
    same = at::equal(e, a);
  }
  if (same) return "";
  std::ostringstream text;
  text << "values differ:\nexpected " << e << "\nactual " << a;
  return text.str();
}

std::string OutsideBound(const ErrorBound& bound, const std::vector<c10::IValue>& inputs,
                         const at::Tensor& exact, const at::Tensor& actual) {
  if (!actual.sizes().equals(exact.sizes()) || actual.scalar_type() != at::kFloat) {
    return "shape or dtype differs";
  }
  at::Tensor excess = (actual.to(at::kDouble) - exact).abs() - bound(inputs, exact) - 1e-30;
  const double worst = excess.numel() == 0 ? -1 : excess.max().item<double>();
  return worst > 0 ? "error exceeds the bound by " + std::to_string(worst) : "";
}

std::string CheckWeightedCall(const ErrorBound& bound, const SingleNode& node, Slots& slots,
                              const at::Tensor& x, const at::Tensor& weight,
                              const c10::optional<at::Tensor>& bias, const WeightedOp& op) {
  c10::optional<at::Tensor> aten_result;
  try {
    aten_result = op(x, weight, bias);
  } catch (const std::exception&) {
  }
  const std::vector<c10::IValue> inputs = InputsAfterConstants(node.node, x);
  const std::string error = slots.Run(node.kernel, inputs);
  if (!aten_result) return error.empty() ? "ATen rejects the input, the kernel does not" : "";
  if (!error.empty()) return "the kernel failed: " + error;
  const at::Tensor actual = slots.Output(0).toTensor();
  if (!actual.sizes().equals(aten_result->sizes())) return "the shape differs from ATen's";
  if (!actual.is_contiguous()) return "the result is not contiguous";
  const auto dbl = [](const at::Tensor& t) { return t.to(at::kDouble); };
  const at::Tensor exact =
      op(dbl(x), dbl(weight), bias ? c10::optional<at::Tensor>(dbl(*bias)) : c10::nullopt);
  for (const auto& [who, result] :
       {std::pair<const char*, at::Tensor>{"the kernel", actual}, {"ATen", *aten_result}}) {
    const std::string outside = OutsideBound(bound, inputs, exact, result);
    if (!outside.empty()) return absl::StrCat(who, ": ", outside);
  }
  return "";
}

std::vector<std::string> SameResultsOnSeveralThreads(
    const Kernel& kernel, const std::vector<std::vector<c10::IValue>>& input_sets) {
  std::vector<std::string> failures(input_sets.size());
  std::vector<at::Tensor> alone;
  for (size_t t = 0; t < input_sets.size(); ++t) {
    Slots slots(1);
    failures[t] = slots.Run(kernel, input_sets[t]);
    alone.push_back(failures[t].empty() ? slots.Output(0).toTensor().clone() : at::Tensor());
  }
  std::vector<std::thread> threads;
  for (size_t t = 0; t < input_sets.size(); ++t) {
    if (!failures[t].empty()) continue;
    threads.emplace_back([&, t] {
      Slots slots(1);
      for (int i = 0; i < 50; ++i) {
        const std::string error = slots.Run(kernel, input_sets[t]);
        if (!error.empty() || !at::equal(slots.Output(0).toTensor(), alone[t])) {
          failures[t] = error.empty() ? "result differs from the single-threaded one" : error;
          return;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  return failures;
}

}  // namespace testing
}  // namespace static_runtime
