// The kernel of static_runtime::fused_pointwise (passes/fuse_pointwise.h):
// the group's subgraph compiled to a PointwiseProgram and evaluated in one
// pass, or, on a run whose inputs do not fit the fused form, the group's
// nodes one by one with their own kernels on the node's slots (so that path
// costs what the unfused graph costs, and its intermediates are planned).
//
// The fused form: every tensor input a plain contiguous float32 CPU tensor of
// the group's shape (its largest input's), of a shape that broadcasts to it
// as a repeated row ([16] or [1, 16] for [8, 16]) or column ([8, 1]), or
// 0-dim; numbers; every op having an operand of the group's shape (an op on
// scalars alone runs ATen's scalar formula, which the fused loop would not).
// Outputs are contiguous float32 tensors of that shape, bit for bit ATen's:
// each op's formula per element is the one ATen's kernel uses for that
// element (ops/pointwise_program.h), and the range is split across threads
// as TensorIterator splits it.
#include <array>
#include <memory>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/EmptyTensor.h"
#include "ATen/Parallel.h"
#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "c10/core/InferenceMode.h"
#include "ops/direct_call.h"
#include "ops/fallback.h"
#include "ops/out_variant.h"
#include "ops/pointwise_eval.h"
#include "ops/registry.h"
#include "passes/operators.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

using ops::PointwiseInput;
using ops::PointwiseInstruction;
using ops::PointwiseOp;
using ops::PointwiseProgram;
using torch::jit::Node;
using torch::jit::Value;

// The group's nodes run one by one with their own kernels, on the runtime's
// slots: each node's inputs are fused-node inputs or outputs, its output a
// fused-node output (the pass gives the node one output per value).
class Unfused {
 public:
  static std::shared_ptr<const Unfused> Make(const torch::jit::Graph& subgraph) {
    auto unfused = std::make_shared<Unfused>();
    // Where each subgraph value lives: a fused-node input or output.
    absl::flat_hash_map<const Value*, Place> place;
    for (size_t i = 0; i < subgraph.inputs().size(); ++i) {
      place.emplace(subgraph.inputs()[i], Place{true, static_cast<uint32_t>(i)});
    }
    for (size_t j = 0; j < subgraph.outputs().size(); ++j) {
      place.emplace(subgraph.outputs()[j], Place{false, static_cast<uint32_t>(j)});
    }
    for (const Node* node : subgraph.nodes()) {
      Step step;
      auto selected = KernelRegistry::Global().Find(node, /*allow_out_variants=*/true);
      if (selected.has_value()) {
        step.kernel = std::move(selected->kernel);
      } else {
        absl::StatusOr<Kernel> fallback = MakeFallbackKernel(node);
        if (!fallback.ok()) return nullptr;
        step.kernel = *std::move(fallback);
      }
      if (node->inputs().size() > kMaxStepInputs || node->outputs().size() != 1) return nullptr;
      for (const Value* input : node->inputs()) step.inputs.push_back(place.at(input));
      step.output = place.at(node->output());
      unfused->steps_.push_back(std::move(step));
    }
    return unfused;
  }

  void Run(NodeIO& io) const {
    for (const Step& step : steps_) {
      std::array<ValueIndex, kMaxStepInputs> inputs;
      for (size_t i = 0; i < step.inputs.size(); ++i) inputs[i] = Index(io, step.inputs[i]);
      const ValueIndex output = Index(io, step.output);
      NodeIO step_io(io.values(), absl::MakeConstSpan(inputs.data(), step.inputs.size()),
                     absl::MakeConstSpan(&output, 1));
      step.kernel(step_io);
    }
  }

 private:
  static constexpr size_t kMaxStepInputs = 4;
  struct Place {
    bool is_input;
    uint32_t index;
  };
  struct Step {
    Kernel kernel;
    std::vector<Place> inputs;
    Place output;
  };
  static ValueIndex Index(const NodeIO& io, Place place) {
    return place.is_input ? io.InputIndex(place.index) : io.OutputIndex(place.index);
  }
  std::vector<Step> steps_;
};

// The op of a subgraph node, if the evaluator computes it like ATen here.
c10::optional<PointwiseOp> OpOf(const Node* node) {
  const std::string kind = node->kind().toQualString();
  static const std::vector<std::pair<const char*, PointwiseOp>> kOps = {
      {"aten::add", PointwiseOp::kAdd},     {"aten::sub", PointwiseOp::kSub},
      {"aten::mul", PointwiseOp::kMul},     {"aten::div", PointwiseOp::kDiv},
      {"aten::neg", PointwiseOp::kNeg},     {"aten::abs", PointwiseOp::kAbs},
      {"aten::relu", PointwiseOp::kRelu},   {"aten::sigmoid", PointwiseOp::kSigmoid},
      {"aten::tanh", PointwiseOp::kTanh},   {"aten::exp", PointwiseOp::kExp},
      {"aten::log", PointwiseOp::kLog},     {"aten::sqrt", PointwiseOp::kSqrt},
      {"aten::rsqrt", PointwiseOp::kRsqrt}, {"aten::clamp", PointwiseOp::kClamp}};
  for (const auto& [name, op] : kOps) {
    if (kind == name) return op;
  }
  return c10::nullopt;
}

// A clamp bound (a constant outside the group) as ATen converts it to float
// (it rejects a finite double beyond float's range; such a group is left to
// the unfused path).
c10::optional<float> FloatBound(const Value* value) {
  const c10::optional<c10::IValue> constant = torch::jit::toIValue(value);
  if (!constant || !(constant->isDouble() || constant->isInt())) return c10::nullopt;
  const double bound = constant->toScalar().toDouble();
  if (std::isfinite(bound) && std::abs(bound) > std::numeric_limits<float>::max()) {
    return c10::nullopt;
  }
  return static_cast<float>(bound);
}

// The group as a program over registers: the node's inputs, then one per
// node. nullopt when some op does not match ATen on this CPU.
c10::optional<PointwiseProgram> Compile(const Node* fused, const ops::PointwiseEvaluator& evaluator,
                                        std::vector<int32_t>* output_of_instruction) {
  const torch::jit::Graph& subgraph = *fused->g(c10::attr::Subgraph);
  PointwiseProgram program;
  absl::flat_hash_map<const Value*, int32_t> reg;
  for (const Value* input : subgraph.inputs()) reg.emplace(input, reg.size());
  // The fused node's input that a subgraph input stands for.
  auto outer = [&](const Value* inner) { return fused->input(reg.at(inner)); };
  program.num_inputs = static_cast<int32_t>(reg.size());
  if (program.num_inputs > ops::kMaxPointwiseInputs) return c10::nullopt;
  for (const Node* node : subgraph.nodes()) {
    const c10::optional<PointwiseOp> op = OpOf(node);
    if (!op || !evaluator.matches[static_cast<int>(*op)]) return c10::nullopt;
    PointwiseInstruction instruction;
    instruction.op = *op;
    instruction.vector_tail = evaluator.vector_tail[static_cast<int>(*op)];
    instruction.a = reg.at(node->input(0));
    if (ops::IsBinary(*op)) instruction.b = reg.at(node->input(1));
    if (*op == PointwiseOp::kClamp) {
      const c10::optional<float> lo = FloatBound(outer(node->input(1)));
      const c10::optional<float> hi = FloatBound(outer(node->input(2)));
      if (!lo || !hi) return c10::nullopt;
      instruction.lo = *lo;
      instruction.hi = *hi;
    }
    reg.emplace(node->output(), program.num_inputs + program.code.size());
    program.code.push_back(instruction);
  }
  if (program.code.size() > static_cast<size_t>(ops::kMaxPointwiseInstructions)) {
    return c10::nullopt;
  }
  // Only the outputs used after the group are written (the others are for
  // the unfused path).
  output_of_instruction->assign(program.code.size(), -1);
  const size_t used = static_cast<size_t>(fused->i(ops::kUsedOutputs));
  for (size_t i = 0; i < used; ++i) {
    (*output_of_instruction)[reg.at(subgraph.outputs()[i]) - program.num_inputs] =
        static_cast<int32_t>(i);
  }
  return program;
}

// A contiguous `tensor` that broadcasts to `shape` as a repeated row (its
// sizes are shape's last ones, after leading 1s) or as a column of values
// each repeated (its sizes are shape's first ones, then 1s): the input
// reading it. False for other layouts.
bool Broadcast(const at::Tensor& tensor, at::IntArrayRef shape, PointwiseInput* input) {
  const at::IntArrayRef sizes = tensor.sizes();
  if (sizes.size() > shape.size()) return false;
  const size_t dims = shape.size();
  const size_t offset = dims - sizes.size();
  auto size = [&](size_t d) { return d < offset ? int64_t{1} : sizes[d - offset]; };
  // A row: once a dim broadcasts (going outwards), every outer one does.
  // A column: once a dim broadcasts (going inwards), every inner one does.
  bool row = true, column = true, seen = false;
  for (size_t d = dims; d-- > 0;) {
    if (size(d) != shape[d] && size(d) != 1) return false;
    if (size(d) != shape[d]) {
      seen = true;
    } else if (seen && shape[d] != 1) {
      row = false;
    }
  }
  seen = false;
  int64_t repeat = 1;
  for (size_t d = 0; d < dims; ++d) {
    if (size(d) != shape[d]) {
      seen = true;
      repeat *= shape[d];
    } else if (seen && shape[d] != 1) {
      column = false;
    }
  }
  if (!row && !column) return false;
  *input = {tensor.data_ptr<float>(), 0.f, row ? 1 : repeat, tensor.numel()};
  return true;
}

class FusedPointwise {
 public:
  static Kernel Make(const Node* node) {
    const std::shared_ptr<torch::jit::Graph> subgraph = node->g(c10::attr::Subgraph);
    auto fused = std::make_shared<FusedPointwise>();
    fused->unfused_ = Unfused::Make(*subgraph);
    if (fused->unfused_ == nullptr) return nullptr;
    const ops::PointwiseEvaluator& evaluator = ops::PointwiseEvaluatorForThisCpu();
    if (evaluator.range != nullptr) {
      fused->range_ = evaluator.range;
      fused->program_ = Compile(node, evaluator, &fused->output_of_instruction_);
      if (fused->program_) {
        fused->used_.assign(fused->program_->num_inputs, false);
        for (const PointwiseInstruction& instruction : fused->program_->code) {
          fused->used_[instruction.a] = true;
          if (ops::IsBinary(instruction.op)) fused->used_[instruction.b] = true;
        }
      }
    }
    return [fused](NodeIO& io) {
      if (!fused->TryFused(io)) fused->unfused_->Run(io);
    };
  }

 private:
  // Runs the fused form if the inputs fit it; false (nothing written) if not.
  bool TryFused(NodeIO& io) const {
    if (!program_) return false;
    const PointwiseProgram& program = *program_;
    // The group's shape: its largest tensor input's.
    const at::Tensor* shaped = nullptr;
    for (int32_t i = 0; i < program.num_inputs; ++i) {
      const c10::IValue& value = io.Input(i);
      if (value.isTensor() && value.toTensor().dim() > 0 &&
          (shaped == nullptr || value.toTensor().numel() > shaped->numel())) {
        shaped = &value.toTensor();
      }
    }
    if (shaped == nullptr) return false;
    const at::IntArrayRef shape = shaped->sizes();
    const int64_t numel = shaped->numel();
    std::array<PointwiseInput, ops::kMaxPointwiseInputs> inputs;
    std::array<bool, ops::kMaxPointwiseRegisters> full{};
    const bool inference_mode = c10::InferenceMode::is_enabled();
    int laid_out = 0;  // inputs the evaluator lays out per tile
    auto lay_out = [&](int32_t i) { return !used_[i] || ++laid_out <= ops::kMaxLaidOutInputs; };
    for (int32_t i = 0; i < program.num_inputs; ++i) {
      const c10::IValue& value = io.Input(i);
      if (value.isTensor()) {
        const at::Tensor& tensor = value.toTensor();
        if (!PlainCpuTensor(tensor) || tensor.scalar_type() != at::kFloat ||
            (!inference_mode && tensor.requires_grad())) {
          return false;
        }
        if (tensor.dim() == 0) {
          if (!lay_out(i)) return false;
          inputs[i] = {nullptr, *tensor.data_ptr<float>()};
          continue;
        }
        if (!tensor.is_contiguous()) return false;
        if (tensor.sizes().equals(shape)) {
          inputs[i] = {tensor.data_ptr<float>(), 0.f};
          full[i] = true;
          continue;
        }
        if (!lay_out(i) || !Broadcast(tensor, shape, &inputs[i])) return false;
      } else if (value.isDouble() && lay_out(i)) {
        inputs[i] = {nullptr, static_cast<float>(value.toDouble())};
      } else if (value.isInt() && lay_out(i)) {
        inputs[i] = {nullptr, static_cast<float>(value.toInt())};
      } else {
        return false;
      }
    }
    // Each op's result has the group's shape: it has an operand of that shape
    // (so a unary op loops over the whole range, contiguously, as here).
    for (size_t k = 0; k < program.code.size(); ++k) {
      const PointwiseInstruction& instruction = program.code[k];
      if (!full[instruction.a] && !(ops::IsBinary(instruction.op) && full[instruction.b])) {
        return false;
      }
      full[program.num_inputs + k] = true;
    }
    std::array<float*, ops::kMaxPointwiseInstructions> outputs{};
    for (size_t k = 0; k < program.code.size(); ++k) {
      const int32_t output = output_of_instruction_[k];
      if (output < 0) continue;
      c10::IValue& slot = io.Output(output);
      if (at::Tensor* reused = ReusableOutput(slot, at::kFloat)) {
        // Sized in place when the storage holds the result, else resized
        // (which grows the storage).
        const size_t bytes = (reused->storage_offset() + numel) * sizeof(float);
        if (reused->storage().nbytes() >= bytes) {
          reused->unsafeGetTensorImpl()->set_sizes_contiguous(shape);
        } else {
          at::AutoDispatchBelowADInplaceOrView below_autograd;
          reused->resize_(shape);
        }
      } else {
        slot = at::detail::empty_cpu(shape, at::kFloat, c10::nullopt, c10::nullopt, c10::nullopt,
                                     c10::nullopt);
      }
      outputs[k] = slot.toTensor().data_ptr<float>();
    }
    // TensorIterator's split of a loop over `numel` elements across threads.
    at::parallel_for(0, numel, at::internal::GRAIN_SIZE, [&](int64_t begin, int64_t end) {
      range_(program, inputs.data(), outputs.data(), begin, end);
    });
    return true;
  }

  std::shared_ptr<const Unfused> unfused_;
  c10::optional<PointwiseProgram> program_;
  std::vector<int32_t> output_of_instruction_;
  std::vector<bool> used_;  // by input: read by an instruction
  ops::PointwiseRangeFn range_ = nullptr;
};

const bool kRegistered = [] {
  KernelRegistry::Global().Register("static_runtime::fused_pointwise", KernelKind::kOutVariant,
                                    FusedPointwise::Make);
  return true;
}();

}  // namespace
}  // namespace static_runtime
