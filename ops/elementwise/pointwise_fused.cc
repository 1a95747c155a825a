// The kernel of static_runtime::fused_pointwise (passes/fuse_pointwise.h):
// the group's subgraph compiled to a PointwiseProgram and evaluated in one
// pass, or, on a run whose inputs do not fit the fused form, the group's
// nodes one by one with their own kernels on the node's slots (so that path
// costs what the unfused graph costs, and its intermediates are planned).
//
// The fused form: every tensor input a plain float32 or bool CPU tensor of
// the group's shape (its largest input's), of a shape that broadcasts to
// it, or 0-dim, that reads as at most two levels of rows in row-major
// order: a contiguous tensor, a view of a wider one (a chunk, a slice, a
// step), a repeated row ([16] or [1, 16] for [8, 16]), a column ([8, 1]),
// an expanded tensor; numbers; operands of the types Typed() admits (bools
// where ATen wants bools, floats or 0/1 where it promotes, integers where
// ATen computes in float); an op reading a non-contiguous operand, or no
// operand of the group's shape (a row, a 0-dim tensor, numbers: ATen
// computes it over fewer elements, the fused loop at each element of the
// group), being one whose vector/scalar split cannot show
// (ops/elementwise/pointwise_program.h), and the latter's result no output of the
// group; no size-1 dimension with another stride than a new tensor's (ATen's
// results keep those: ops::DefaultSizeOneStrides). Outputs are contiguous
// tensors of that shape (bool for
// comparisons and to(bool), int32/int64 for those conversions, else
// float32), bit for bit ATen's: each op's formula per element is the one
// ATen's kernel uses for that element (ops/elementwise/pointwise_program.h), and the
// range is split across threads as TensorIterator splits it.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <memory>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/EmptyTensor.h"
#include "ATen/Parallel.h"
#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "c10/core/InferenceMode.h"
#include "ir/operators/operators.h"
#include "ops/core/direct_call.h"
#include "ops/core/fallback.h"
#include "ops/core/out_variant.h"
#include "ops/core/registry.h"
#include "ops/elementwise/pointwise_compile.h"
#include "ops/elementwise/pointwise_eval.h"
#include "ops/elementwise/scalar_operand_loops.h"

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
  static std::shared_ptr<const Unfused> Make(const torch::jit::Graph& subgraph,
                                             const KernelRegistry& registry) {
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
      auto selected = registry.Find(node, /*allow_out_variants=*/true);
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
  static constexpr size_t kMaxStepInputs = 8;
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

// How `tensor`, broadcast to `shape` as ATen broadcasts (a missing or
// size-1 dim read with stride 0), is read as rows (PointwiseInput): its
// dims merge into at most two levels. False when they do not, or when its
// dims are not in row-major order (then ATen's result would take the
// input's dim order instead of being contiguous).
bool Layout(const at::Tensor& tensor, at::IntArrayRef shape, PointwiseInput* input) {
  const at::IntArrayRef sizes = tensor.sizes();
  const at::IntArrayRef strides = tensor.strides();
  if (sizes.size() > shape.size()) return false;
  const size_t offset = shape.size() - sizes.size();
  int64_t level_size[2] = {1, 1}, level_stride[2] = {1, 0};
  int levels = 0;
  int64_t inner_stride = 0;  // the last nonzero stride, going outwards
  for (size_t d = shape.size(); d-- > 0;) {
    const int64_t size = d < offset ? 1 : sizes[d - offset];
    if (size != shape[d] && size != 1) return false;
    if (shape[d] == 1) continue;
    const int64_t stride = size == 1 ? 0 : strides[d - offset];
    if (stride != 0) {
      if (stride <= inner_stride) return false;
      inner_stride = stride;
    }
    if (levels > 0 && stride == level_size[levels - 1] * level_stride[levels - 1]) {
      level_size[levels - 1] *= shape[d];
    } else if (levels == 2) {
      return false;
    } else {
      level_size[levels] = shape[d];
      level_stride[levels] = stride;
      ++levels;
    }
  }
  *input = ops::ContiguousFloats(tensor.data_ptr());
  const bool contiguous = levels == 0 || (levels == 1 && level_stride[0] == 1);
  input->inner = contiguous ? 0 : level_size[0];
  input->inner_stride = level_stride[0];
  input->row_stride = level_stride[1];
  return true;
}

// An operand's type: a float (float32 tensor or double), an int number, a
// bool tensor, an integer (int32 or int64) tensor.
enum class Type : uint8_t { kFloat, kInt, kBool, kIntTensor };

at::ScalarType DtypeOf(ops::ElementType element) {
  switch (element) {
    case ops::ElementType::kBool:
      return at::kBool;
    case ops::ElementType::kInt32:
      return at::kInt;
    case ops::ElementType::kInt64:
      return at::kLong;
    case ops::ElementType::kFloat:
      break;
  }
  return at::kFloat;
}

// The element type of a tensor of `dtype`; false for a dtype the evaluator
// does not read.
bool ElementOf(at::ScalarType dtype, ops::ElementType* element) {
  for (ops::ElementType candidate : {ops::ElementType::kFloat, ops::ElementType::kBool,
                                     ops::ElementType::kInt32, ops::ElementType::kInt64}) {
    if (DtypeOf(candidate) == dtype) {
      *element = candidate;
      return true;
    }
  }
  return false;
}

// The operand type of a tensor of `element`s.
Type TypeOf(ops::ElementType element) {
  switch (element) {
    case ops::ElementType::kFloat:
      return Type::kFloat;
    case ops::ElementType::kBool:
      return Type::kBool;
    case ops::ElementType::kInt32:
    case ops::ElementType::kInt64:
      break;
  }
  return Type::kIntTensor;
}

// The element at `data` as ATen converts it to float.
float AsFloat(const void* data, ops::ElementType element) {
  switch (element) {
    case ops::ElementType::kFloat:
      return *static_cast<const float*>(data);
    case ops::ElementType::kBool:
      return static_cast<float>(*static_cast<const bool*>(data));
    case ops::ElementType::kInt32:
      return static_cast<float>(*static_cast<const int32_t*>(data));
    case ops::ElementType::kInt64:
      return static_cast<float>(*static_cast<const int64_t*>(data));
  }
  return 0.f;
}

// Whether ATen computes `op` on operands of these types as the evaluator
// does on floats (a bool as 0 or 1, an integer converted to float), with a
// float result or, for a comparison, a bool one. ATen computes in the
// operands' common dtype, converting each operand to it: arithmetic and
// where's choices are computed in float when one operand is a float (with
// bools, integers and int numbers alone the result would be a bool or an
// int64), division always (true division of integers gives a float); a
// comparison of an integer tensor only against a float (otherwise ATen
// compares integers, which floats hold inexactly beyond 2^24); where's
// condition and masked_fill's mask are bools, masked_fill's self and a
// unary op's operand floats; a conversion converts anything (of its own
// dtype it is a copy here, which the alias rule of passes/fuse_pointwise.h
// allows), but a conversion to an integer type not an integer (held as a
// float, it may have been rounded).
bool Typed(PointwiseOp op, Type a, Type b, Type c) {
  const auto promotes_to_float = [](Type x, Type y) {
    return x == Type::kFloat || y == Type::kFloat;
  };
  if (ops::IsComparison(op)) {
    return (a != Type::kIntTensor && b != Type::kIntTensor) || promotes_to_float(a, b);
  }
  switch (op) {
    case PointwiseOp::kToFloat:
    case PointwiseOp::kToBool:
    case PointwiseOp::kDiv:
      return true;
    case PointwiseOp::kToInt32:
    case PointwiseOp::kToInt64:
      return a != Type::kIntTensor;
    case PointwiseOp::kAdd:
    case PointwiseOp::kSub:
    case PointwiseOp::kMul:
      return promotes_to_float(a, b);
    case PointwiseOp::kWhere:
      return c == Type::kBool && promotes_to_float(a, b);
    case PointwiseOp::kMaskedFill:
      return a == Type::kFloat && b == Type::kBool && c != Type::kBool;
    default:
      return a == Type::kFloat;
  }
}

class FusedPointwise {
 public:
  // The group's members run with the kernels of `registry` when it is not
  // computed in one pass.
  static KernelOffer Make(const Node* node, const KernelRegistry& registry) {
    const std::shared_ptr<torch::jit::Graph> subgraph = node->g(c10::attr::Subgraph);
    auto fused = std::make_shared<FusedPointwise>();
    fused->unfused_ = Unfused::Make(*subgraph, registry);
    if (fused->unfused_ == nullptr) return Decline();
    const ops::PointwiseEvaluator& evaluator = ops::PointwiseEvaluatorForThisCpu();
    if (evaluator.range != nullptr) {
      fused->range_ = evaluator.range;
      fused->program_ = ops::CompilePointwiseGroup(node, evaluator, &fused->output_of_instruction_);
      if (fused->program_) {
        fused->used_.assign(fused->program_->num_inputs, false);
        for (const PointwiseInstruction& instruction : fused->program_->code) {
          fused->own_grain_ |=
              instruction.op == PointwiseOp::kGelu || instruction.op == PointwiseOp::kGeluTanh;
          ops::ForEachOperand(instruction, [&](int32_t reg) { fused->used_[reg] = true; });
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
    // ATen's gelu splits more than 16384 elements across threads in its own
    // chunks, which the fused loop's split would not match.
    if (own_grain_ && numel > 16384 && at::get_num_threads() > 1) return false;
    // Per register (only the program's are set: filling the whole arrays
    // would cost more than the checks).
    std::array<PointwiseInput, ops::kMaxPointwiseInputs> inputs;
    std::array<bool, ops::kMaxPointwiseRegisters> full;     // of the group's shape
    std::array<bool, ops::kMaxPointwiseRegisters> strided;  // not contiguous, not a number
    std::array<Type, ops::kMaxPointwiseRegisters> type;
    std::array<bool, ops::kMaxPointwiseInputs> overflows;  // a double beyond float's range
    const size_t registers = program.num_inputs + program.code.size();
    std::fill_n(full.begin(), registers, false);
    std::fill_n(strided.begin(), registers, false);
    std::fill_n(type.begin(), registers, Type::kFloat);
    std::fill_n(overflows.begin(), program.num_inputs, false);
    int laid_out = 0;  // inputs the evaluator lays out per tile
    auto lay_out = [&](int32_t i) { return ++laid_out <= ops::kMaxLaidOutInputs; };
    for (int32_t i = 0; i < program.num_inputs; ++i) {
      // Not an operand: a constant argument (a bound, a dtype) read when the
      // program was compiled.
      if (!used_[i]) continue;
      const c10::IValue& value = io.Input(i);
      if (value.isTensor()) {
        const at::Tensor& tensor = value.toTensor();
        ops::ElementType element;
        if (!PlainCpuTensor(tensor) || !ElementOf(tensor.scalar_type(), &element) ||
            (tensor.requires_grad() && !c10::InferenceMode::is_enabled())) {
          return false;
        }
        type[i] = TypeOf(element);
        // (Outputs are contiguous: ATen's keep odd strides of size-1 dimensions.)
        if (!ops::DefaultSizeOneStrides(tensor)) return false;
        if (tensor.dim() == 0) {
          if (!lay_out(i)) return false;
          inputs[i] = ops::Number(AsFloat(tensor.data_ptr(), element));
          continue;
        }
        full[i] = tensor.sizes().equals(shape);
        const bool floats = element == ops::ElementType::kFloat;
        if (full[i] && tensor.is_contiguous() && floats) {  // the common case, in place
          inputs[i] = ops::ContiguousFloats(tensor.data_ptr());
          continue;
        }
        if (!Layout(tensor, shape, &inputs[i])) return false;
        strided[i] = inputs[i].inner != 0;
        inputs[i].element = element;
        if ((strided[i] || !floats) && !lay_out(i)) return false;
      } else if (value.isDouble() && lay_out(i)) {
        inputs[i] = ops::Number(static_cast<float>(value.toDouble()));
        // ATen's masked_fill rejects a value float cannot hold.
        overflows[i] = std::isfinite(value.toDouble()) && std::isinf(inputs[i].scalar);
      } else if (value.isInt() && lay_out(i)) {
        inputs[i] = ops::Number(static_cast<float>(value.toInt()));
        type[i] = Type::kInt;
      } else {
        return false;
      }
    }
    if (!InstructionsFit(full, strided, type, overflows)) return false;
    std::array<void*, ops::kMaxPointwiseInstructions> outputs;
    for (size_t k = 0; k < program.code.size(); ++k) {
      const int32_t output = output_of_instruction_[k];
      outputs[k] = nullptr;
      if (output < 0) continue;
      c10::IValue& slot = io.Output(output);
      const at::ScalarType dtype = DtypeOf(ops::ResultTypeOf(program.code[k].op));
      if (at::Tensor* reused = ReusableOutput(slot, dtype)) {
        // Sized in place when the storage holds the result, else resized
        // (which grows the storage).
        const size_t bytes = (reused->storage_offset() + numel) * at::elementSize(dtype);
        if (reused->storage().nbytes() >= bytes) {
          reused->unsafeGetTensorImpl()->set_sizes_contiguous(shape);
        } else {
          at::AutoDispatchBelowADInplaceOrView below_autograd;
          reused->resize_(shape);
        }
      } else {
        slot = at::detail::empty_cpu(shape, dtype, c10::nullopt, c10::nullopt, c10::nullopt,
                                     c10::nullopt);
      }
      outputs[k] = slot.toTensor().data_ptr();
    }
    // TensorIterator's split of a loop over `numel` elements across threads
    // (one range below its grain size).
    if (numel < at::internal::GRAIN_SIZE) {
      range_(program, inputs.data(), outputs.data(), 0, numel);
    } else {
      at::parallel_for(0, numel, at::internal::GRAIN_SIZE, [&](int64_t begin, int64_t end) {
        range_(program, inputs.data(), outputs.data(), begin, end);
      });
    }
    return true;
  }

  // Whether every instruction's operands fit the fused form, from the
  // inputs' facts (the instructions' registers of `full` and `type` are
  // filled as it goes).
  // The inputs' facts of the last call that fit are remembered (programs of
  // at most kMaxKeyedInputs inputs), so that a run whose inputs look like the
  // previous run's skips the walk.
  bool InstructionsFit(std::array<bool, ops::kMaxPointwiseRegisters>& full,
                       const std::array<bool, ops::kMaxPointwiseRegisters>& strided,
                       std::array<Type, ops::kMaxPointwiseRegisters>& type,
                       const std::array<bool, ops::kMaxPointwiseInputs>& overflows) const {
    const PointwiseProgram& program = *program_;
    uint64_t key = 0;
    if (program.num_inputs <= kMaxKeyedInputs) {
      key = 1;  // 0 is "none yet"
      for (int32_t i = 0; i < program.num_inputs; ++i) {
        key = key << 5 | uint64_t{full[i]} << 4 | uint64_t{strided[i]} << 3 |
              uint64_t{overflows[i]} << 2 | static_cast<uint64_t>(type[i]);
      }
    }
    if (key != 0 && key == last_fit_.load(std::memory_order_relaxed)) return true;
    // The fused loop computes every op at every element of the group's
    // shape. ATen computes an op with an operand of that shape over the
    // same range, as here; an op on smaller operands (a row, a column, a
    // 0-dim tensor, numbers) over a smaller range, and an op reading a
    // non-contiguous operand row by row: only an op whose split between
    // vector and scalar formulas cannot show computes those as here.
    for (size_t k = 0; k < program.code.size(); ++k) {
      const PointwiseInstruction& instruction = program.code[k];
      bool reads_full = false, reads_strided = false;
      ops::ForEachOperand(instruction, [&](int32_t reg) {
        reads_full |= full[reg];
        reads_strided |= strided[reg];
      });
      const bool split_cannot_show = instruction.split_free || instruction.vector_tail;
      if ((!reads_full || reads_strided) && !split_cannot_show) return false;
      // A result of a smaller shape is no output of the group's shape.
      if (!reads_full && output_of_instruction_[k] >= 0) return false;
      const int32_t a = instruction.a, b = instruction.b, c = instruction.c;
      if (!Typed(instruction.op, type[a], type[b], type[c])) return false;
      if (instruction.op == PointwiseOp::kMaskedFill && c < program.num_inputs && overflows[c]) {
        return false;
      }
      const int32_t result = program.num_inputs + static_cast<int32_t>(k);
      full[result] = reads_full;
      type[result] = TypeOf(ops::ResultTypeOf(instruction.op));
    }
    if (key != 0) last_fit_.store(key, std::memory_order_relaxed);
    return true;
  }

  std::shared_ptr<const Unfused> unfused_;
  c10::optional<PointwiseProgram> program_;
  std::vector<int32_t> output_of_instruction_;
  std::vector<bool> used_;  // by input: read by an instruction
  bool own_grain_ = false;  // has an op that splits ranges across threads its own way
  ops::PointwiseRangeFn range_ = nullptr;
  static constexpr int32_t kMaxKeyedInputs = 12;  // 5 bits each, and a leading 1
  mutable std::atomic<uint64_t> last_fit_{0};     // shared by the runtimes of all threads
};

}  // namespace

void RegisterPointwiseFusedKernels(KernelRegistry& registry) {
  registry.Add({KernelOp::AnyNodeOf("static_runtime::fused_pointwise"), NodeKind::kOutVariant,
                [&registry](const Node* node) { return FusedPointwise::Make(node, registry); }});
}

}  // namespace static_runtime
