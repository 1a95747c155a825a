#include "verify/run_check.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "ATen/ATen.h"
#include "ATen/CPUGeneratorImpl.h"
#include "ATen/NestedTensorImpl.h"
#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "errors/exception_message.h"
#include "errors/status_from_exception.h"
#include "errors/status_macros.h"
#include "load/load.h"
#include "runtime/plan.h"
#include "torch/csrc/jit/runtime/interpreter.h"
#include "verify/reference.h"

namespace static_runtime {
namespace golden {

namespace {

at::Tensor GeneratorState(at::Generator& generator) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void SetGeneratorState(at::Generator& generator, const at::Tensor& state) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

}  // namespace

bool OutputsDiffer(const absl::Status& status) {
  return status.GetPayload(kOutputsDifferPayload).has_value();
}

bool JitRaised(const absl::Status& status) {
  return status.GetPayload(kJitRaisedPayload).has_value();
}

absl::Status CheckRunAgainstJit(torch::jit::Module& module, StaticRuntime& runtime,
                                const std::vector<c10::IValue>& inputs,
                                WhenTheJitRaises when_the_jit_raises, c10::IValue* output,
                                bool* wrote_inputs, reference::Tolerance tolerance,
                                c10::IValue* jit_output) {
  // Each side runs on its own copy: a model may write to its inputs.
  const std::vector<c10::IValue> jit_inputs = reference::DeepCopy(inputs);
  const std::vector<c10::IValue> our_inputs = reference::DeepCopy(inputs);
  std::string jit_error;
  c10::IValue expected;
  // Both sides start from the same state of the default random generator: a
  // model that draws random numbers (dropout in training mode, as
  // Tacotron2's prenet keeps in eval) gets the same draws on each side.
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  const at::Tensor random_state = GeneratorState(generator);
  try {
    // Under the grad mode the runtime's run sees: none in inference mode.
    // A model may branch on it: nn.TransformerEncoder leaves its fast path
    // (whose padding positions are zeros) for the slow one (which computes
    // them) when grad is enabled and a parameter requires grad, as those of
    // a module that is not frozen do.
    std::optional<at::NoGradGuard> no_grad;
    if (runtime.module().options().inference_mode) no_grad.emplace();
    expected = module.get_method(ForwardMethodName(module))(jit_inputs);
    if (jit_output != nullptr) *jit_output = expected;
  } catch (const std::exception& error) {
    jit_error = ErrorHeadline(ExceptionMessage(error));
  }
  SetGeneratorState(generator, random_state);
  absl::StatusOr<c10::IValue> actual = runtime.Run(our_inputs);
  // Whatever is found, the runtime is left ready for the next run.
  auto release = absl::MakeCleanup([&runtime] { runtime.ReleaseOutputs(); });
  absl::Status outputs_same;
  if (!jit_error.empty()) {
    if (when_the_jit_raises == WhenTheJitRaises::kFail) {
      absl::Status raised =
          absl::InternalError(absl::StrCat("the JIT interpreter raised: ", jit_error));
      raised.SetPayload(kJitRaisedPayload, absl::Cord());
      return raised;
    }
    if (actual.ok()) {
      return absl::InternalError(absl::StrCat("the JIT raised but the static runtime returned ",
                                              reference::Shapes(*actual), "; JIT: ", jit_error));
    }
  } else if (!actual.ok()) {
    return absl::InternalError(
        absl::StrCat("the static runtime failed: ", actual.status().message()));
  } else {
    // Reported after the other checks: a caller may accept a difference
    // it can explain (verify/verify_model.cc), not a run that broke anything else.
    outputs_same = reference::Compare(expected, *actual, tolerance);
    if (!outputs_same.ok()) outputs_same.SetPayload(kOutputsDifferPayload, absl::Cord());
  }
  // What the run did to its inputs (a failed one: before it failed, and what
  // it undid, as a `with` block's __exit__) is what the JIT's did.
  const c10::IValue ours_after = c10::ivalue::Tuple::create(our_inputs);
  if (!reference::ExactlyEqual(c10::ivalue::Tuple::create(jit_inputs), ours_after)) {
    const char* run = actual.ok() ? "run" : "failed run";
    return absl::InternalError(absl::StrCat(
        "the ", run, " left its inputs different from what the JIT's ", run, " left of them"));
  }
  if (wrote_inputs != nullptr && actual.ok()) {
    *wrote_inputs = !reference::ExactlyEqual(c10::ivalue::Tuple::create(inputs), ours_after);
  }
  if (output != nullptr && actual.ok()) *output = *std::move(actual);
  std::move(release).Invoke();
  if (runtime.NumHeldValues() != 0) {
    return absl::InternalError(absl::StrCat(runtime.NumHeldValues(), " intermediates left over"));
  }
  return outputs_same;
}

namespace {

c10::IValue ToDouble(const c10::IValue& value) {
  if (value.isTensorList()) {  // a recurrent network's parameters, its states
    c10::List<at::Tensor> converted;
    for (const at::Tensor& tensor : value.toTensorVector()) {
      converted.push_back(ToDouble(tensor).toTensor());
    }
    return converted;
  }
  if (!value.isTensor() || !at::isFloatingType(value.toTensor().scalar_type())) return value;
  return reference::ToDouble(value.toTensor());
}

// Runs the JIT operator of each node that has a kernel of its own on a copy
// of the inputs the kernel saw, and compares (see CheckNodesAgainstJit).
// Records the first failure.
class NodeChecker : public NodeObserver {
 public:
  void Before(const NodeDescription& node, const NodeIO& values) override {
    inputs_.clear();
    if (status_.ok()) CheckInputsIntact(node, values);
    if (!Checked(node)) return;
    std::vector<c10::IValue> inputs;
    for (size_t i = 0; i < values.num_inputs(); ++i) inputs.push_back(values.Input(i));
    inputs_ = reference::DeepCopy(inputs);  // one object stays one (`key is value`)
  }

  void After(const NodeDescription& node, const NodeIO& values) override {
    RecordOutputs(node, values);
    if (!Checked(node)) return;
    ++counts_.checked;
    const std::string where =
        absl::StrCat("node ", node.position, " (", node.node->kind().toQualString(), ")");
    torch::jit::Stack expected;
    try {
      expected = RunAlone(node.node, reference::DeepCopy(inputs_));
    } catch (const std::exception& error) {
      status_ = StatusFromException(error, absl::StrCat(where, ": the JIT operator raised "),
                                    absl::StatusCode::kInternal, MessageLines::kFirstLine);
      return;
    }
    if (expected.size() != values.num_outputs()) {
      status_ = absl::InternalError(
          absl::StrCat(where, ": the JIT operator gave ", expected.size(), " outputs"));
      return;
    }
    // Every node the runtime reports is its NodeInfo (runtime/plan.h).
    const ErrorBound& error_bound = static_cast<const NodeInfo&>(node).error_bound;
    for (size_t i = 0; i < values.num_outputs(); ++i) {
      if (!node.node->outputs()[i]->hasUses()) continue;  // nobody can see it
      const c10::IValue& actual = values.Output(i);
      // The bound is for the node's defined tensors (an attention's weights,
      // when not asked for, are undefined).
      const bool bounded = error_bound && actual.isTensor() && actual.toTensor().defined();
      if (bounded && i == 0) ++counts_.bounded;
      absl::Status same =
          ValuesUnspecified(node.node->kind()) ? SameDtypeAndSizes(expected[i], actual)
          : bounded ? WithinBound(node, error_bound, i, actual, expected[i])
                    : reference::Compare(expected[i], actual, reference::Tolerance::kBitwise);
      if (!same.ok()) {
        status_ = absl::InternalError(absl::StrCat(
            where, ", output ", i, " (", NodeKindName(node.kind), " kernel): ", same.message()));
        return;
      }
    }
  }

  const absl::Status& status() const { return status_; }
  const NodeCheckCounts& counts() const { return counts_; }

 private:
  // What a tensor value holds: its dtype, sizes and bytes (nullopt for what
  // has no bytes of its own to compare: not a tensor, nested, sparse).
  static std::optional<size_t> Fingerprint(const c10::IValue& value) {
    if (!value.isTensor()) return std::nullopt;
    const at::Tensor& tensor = value.toTensor();
    if (!tensor.defined()) return absl::HashOf(0);
    if (tensor.is_nested() || tensor.layout() != at::kStrided) return std::nullopt;
    const at::Tensor dense = tensor.contiguous();
    const absl::string_view bytes(static_cast<const char*>(dense.data_ptr()),
                                  dense.numel() * dense.element_size());
    return absl::HashOf(static_cast<int>(dense.scalar_type()), dense.sizes().vec(), bytes);
  }

  // Remembers each used tensor output as its node made it; a node that
  // writes to a tensor argument (in place, by its schema or conservatively)
  // may change any of them, so what was remembered is forgotten.
  void RecordOutputs(const NodeDescription& node, const NodeIO& values) {
    if (WritesTensors(node.node)) made_.clear();
    for (size_t i = 0; i < values.num_outputs(); ++i) {
      const torch::jit::Value* value = node.node->outputs()[i];
      if (!value->hasUses()) continue;
      std::optional<size_t> fingerprint = Fingerprint(values.Output(i));
      if (fingerprint) {
        made_[value] = {*fingerprint, node.position};
      } else {
        made_.erase(value);
      }
    }
  }

  // Every input a node reads holds what its producer made: memory the plan
  // recycled while the value was in use would change it in between (a
  // consumer computing from the wrong bytes passes the check of its own
  // result; this check does not).
  void CheckInputsIntact(const NodeDescription& node, const NodeIO& values) {
    for (size_t i = 0; i < values.num_inputs(); ++i) {
      const auto made = made_.find(node.node->inputs()[i]);
      if (made == made_.end()) continue;
      if (Fingerprint(values.Input(i)) != made->second.fingerprint) {
        status_ = absl::InternalError(absl::StrCat(
            "node ", node.position, " (", node.node->kind().toQualString(), "), input ", i, " (%",
            node.node->inputs()[i]->debugName(), ", made by node ", made->second.position,
            "): changed between the node that made it and this one"));
        return;
      }
    }
  }

  // Whether `node` may write to a tensor argument: an aliasing annotation
  // that writes on a tensor argument, or conservative aliasing (a list's
  // append writes the list, not its tensors).
  static bool WritesTensors(const torch::jit::Node* node) {
    const c10::FunctionSchema* schema = node->maybeSchema();
    const torch::jit::Operator* op = schema != nullptr ? node->maybeOperator() : nullptr;
    if (op == nullptr) return node->hasSideEffects();
    if (op->aliasAnalysisKind() == c10::AliasAnalysisKind::CONSERVATIVE) return true;
    for (const c10::Argument& argument : schema->arguments()) {
      const c10::AliasInfo* info = argument.alias_info();
      if (info != nullptr && info->isWrite() &&
          argument.type()->kind() == c10::TypeKind::TensorType) {
        return true;
      }
    }
    return false;
  }

  struct Made {
    size_t fingerprint;
    std::string position;  // of the node that made it
  };
  // Kernels of our own; fallbacks are the JIT's operators already. Not the
  // asynchronous ones: a fork's call is checked through its results (the
  // JIT cannot run a prim::fork node on its own: it crashes).
  bool Checked(const NodeDescription& node) const {
    const c10::Symbol kind = node.node->kind();
    return status_.ok() && node.kind != NodeKind::kFallback && !node.node->isNondeterministic() &&
           !node.node->hasSideEffects() && kind != c10::prim::fork && kind != c10::aten::wait;
  }

  // Ops whose result holds whatever its memory held (empty_like): only
  // the result's dtype and sizes are theirs to give.
  static bool ValuesUnspecified(c10::Symbol kind) {
    return kind == c10::aten::empty_like || kind == c10::aten::empty ||
           kind == c10::aten::new_empty || kind == c10::aten::empty_strided;
  }

  static absl::Status SameDtypeAndSizes(const c10::IValue& expected, const c10::IValue& actual) {
    if (!expected.isTensor() || !actual.isTensor()) {
      return reference::Compare(expected, actual, reference::Tolerance::kBitwise);
    }
    const at::Tensor& want = expected.toTensor();
    const at::Tensor& got = actual.toTensor();
    if (want.scalar_type() == got.scalar_type() && want.sizes().equals(got.sizes())) {
      return absl::OkStatus();
    }
    return absl::InternalError(
        absl::StrCat("dtype and sizes ", c10::toString(want.scalar_type()), c10::str(want.sizes()),
                     " vs ", c10::toString(got.scalar_type()), c10::str(got.sizes())));
  }

  // The float64 result of the operator is the exact one; the kernel's output
  // `output` must be within its declared bound of it.
  absl::Status WithinBound(const NodeDescription& node, const ErrorBound& error_bound,
                           size_t output, const c10::IValue& actual_value,
                           const c10::IValue& reference) {
    torch::jit::Stack exact_inputs;
    for (const c10::IValue& input : inputs_) exact_inputs.push_back(ToDouble(input));
    const at::Tensor nested_exact =
        RunAlone(node.node, std::move(exact_inputs)).at(output).toTensor();
    // A nested result is compared in its padded form, once its sizes match.
    if (actual_value.toTensor().is_nested() || reference.toTensor().is_nested()) {
      RETURN_IF_ERROR(
          reference::Compare(at::native::get_nested_size_tensor(reference.toTensor()),
                             at::native::get_nested_size_tensor(actual_value.toTensor()),
                             reference::Tolerance::kBitwise));
    }
    const at::Tensor exact = reference::PaddedIfNested(nested_exact);
    const at::Tensor actual = reference::PaddedIfNested(actual_value.toTensor());
    const at::Tensor expected = reference::PaddedIfNested(reference.toTensor());
    if (!actual.sizes().equals(expected.sizes()) ||
        actual.scalar_type() != expected.scalar_type()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "shape ", c10::str(actual.sizes()), " vs the JIT's ", c10::str(expected.sizes())));
    }
    const at::Tensor error = (actual.to(at::kDouble) - exact).abs();
    const at::Tensor outside =
        at::logical_or(error > error_bound(inputs_, exact), at::isnan(actual) != at::isnan(exact));
    if (!outside.any().item<bool>()) return absl::OkStatus();
    const int64_t index = outside.flatten().nonzero()[0][0].item<int64_t>();
    return absl::FailedPreconditionError(absl::StrCat(
        "element ", index, " is ", actual.flatten()[index].item<double>(), ", the exact result ",
        exact.flatten()[index].item<double>(), ", outside the kernel's error bound"));
  }

  // The node on the JIT interpreter, as a graph of its own (nodes such as
  // prim::TupleConstruct are interpreter instructions, not operators).
  torch::jit::Stack RunAlone(const torch::jit::Node* node, torch::jit::Stack stack) {
    std::unique_ptr<torch::jit::Code>& code = codes_[node];
    if (code == nullptr) {
      auto graph = std::make_shared<torch::jit::Graph>();
      absl::flat_hash_map<const torch::jit::Value*, torch::jit::Value*> inputs;
      for (const torch::jit::Value* input : node->inputs()) {
        if (!inputs.count(input)) inputs[input] = graph->addInput()->setType(input->type());
      }
      torch::jit::Node* copy = graph->insertNode(
          graph->createClone(const_cast<torch::jit::Node*>(node),
                             [&](torch::jit::Value* value) { return inputs.at(value); }));
      for (torch::jit::Value* output : copy->outputs()) graph->registerOutput(output);
      code = std::make_unique<torch::jit::Code>(graph, "node");
    }
    // A value used twice by the node is one graph input.
    torch::jit::Stack unique_inputs;
    absl::flat_hash_set<const torch::jit::Value*> seen;
    for (size_t i = 0; i < node->inputs().size(); ++i) {
      if (seen.insert(node->inputs()[i]).second) unique_inputs.push_back(std::move(stack[i]));
    }
    torch::jit::InterpreterState state(*code);
    state.run(unique_inputs);
    return unique_inputs;
  }

  std::vector<c10::IValue> inputs_;
  absl::flat_hash_map<const torch::jit::Node*, std::unique_ptr<torch::jit::Code>> codes_;
  absl::flat_hash_map<const torch::jit::Value*, Made> made_;
  absl::Status status_;
  NodeCheckCounts counts_;
};

}  // namespace

absl::StatusOr<NodeCheckCounts> CheckNodesAgainstJit(StaticRuntime& runtime,
                                                     const std::vector<c10::IValue>& inputs) {
  NodeChecker checker;
  // A copy: a model may write to its inputs.
  absl::StatusOr<c10::IValue> actual =
      runtime.RunObserved(reference::DeepCopy(inputs), {}, checker);
  runtime.ReleaseOutputs();
  if (!actual.ok()) {
    return absl::InternalError(
        absl::StrCat("the static runtime failed: ", actual.status().message()));
  }
  RETURN_IF_ERROR(checker.status());
  return checker.counts();
}

}  // namespace golden
}  // namespace static_runtime
