#include "ir/operators/operators.h"

#include <algorithm>
#include <initializer_list>
#include <mutex>
#include <utility>

#include "ATen/ATen.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "c10/util/Exception.h"
#include "torch/csrc/jit/ir/ir.h"
#include "torch/csrc/jit/runtime/interpreter.h"
#include "torch/csrc/jit/runtime/operator.h"

namespace static_runtime {
namespace ops {

using c10::AliasAnalysisKind;
using torch::jit::Node;
using torch::jit::Operation;
using torch::jit::Operator;
using torch::jit::Stack;

const c10::Symbol kVariadicCat = c10::Symbol::fromQualString("static_runtime::variadic_cat");
const c10::Symbol kVariadicStack = c10::Symbol::fromQualString("static_runtime::variadic_stack");
const c10::Symbol kSplitUnpacked = c10::Symbol::fromQualString("static_runtime::split_unpacked");
const c10::Symbol kSplitWithSizesUnpacked =
    c10::Symbol::fromQualString("static_runtime::split_with_sizes_unpacked");
const c10::Symbol kChunkUnpacked = c10::Symbol::fromQualString("static_runtime::chunk_unpacked");
const c10::Symbol kUnbindUnpacked = c10::Symbol::fromQualString("static_runtime::unbind_unpacked");
const c10::Symbol kUnpackDict = c10::Symbol::fromQualString("static_runtime::unpack_dict");
const c10::Symbol kVarTupleUnpack = c10::Symbol::fromQualString("static_runtime::var_tuple_unpack");
const c10::Symbol kOwnedRef = c10::Symbol::fromQualString("static_runtime::owned_ref");
const c10::Symbol kMaybeCopyTo = c10::Symbol::fromQualString("static_runtime::maybe_copy_to");
const c10::Symbol kConv2dFused = c10::Symbol::fromQualString("static_runtime::conv2d_fused");

const c10::Symbol kFusedPointwise = c10::Symbol::fromQualString("static_runtime::fused_pointwise");
const c10::Symbol kUsedOutputs = c10::Symbol::attr("used_outputs");
const c10::Symbol kLinearFused = c10::Symbol::fromQualString("static_runtime::linear_fused");
const c10::Symbol kBatchNormRelu = c10::Symbol::fromQualString("static_runtime::batch_norm_relu");
const c10::Symbol kTransformerEncoderLayer =
    c10::Symbol::fromQualString("static_runtime::transformer_encoder_layer");
const c10::Symbol kTransformerEncoderLayerRow =
    c10::Symbol::fromQualString("static_runtime::transformer_encoder_layer_row");
const c10::Symbol kMultiHeadAttention =
    c10::Symbol::fromQualString("static_runtime::multi_head_attention");
const c10::Symbol kLstmFastGates = c10::Symbol::fromQualString("static_runtime::lstm_fast_gates");
const c10::Symbol kGruFastGates = c10::Symbol::fromQualString("static_runtime::gru_fast_gates");
const c10::Symbol kRnnTanhFastGates =
    c10::Symbol::fromQualString("static_runtime::rnn_tanh_fast_gates");
const c10::Symbol kLstmCellFastGates =
    c10::Symbol::fromQualString("static_runtime::lstm_cell_fast_gates");
const c10::Symbol kGruCellFastGates =
    c10::Symbol::fromQualString("static_runtime::gru_cell_fast_gates");

int64_t SequenceToken(int64_t row, int64_t longest) { return row < 0 ? row + longest : row; }

at::Tensor KeepSequenceRow(const at::Tensor& layer, int64_t row) {
  if (!layer.is_nested()) {
    TORCH_CHECK(layer.dim() == 3, "static_runtime: transformer_encoder_layer_row: expected a ",
                "[B, T, D] result, got ", layer.dim(), " dimensions");
    at::Tensor kept = at::zeros_like(layer);
    const int64_t tokens = layer.size(1), index = SequenceToken(row, tokens);
    if (index >= 0 && index < tokens) kept.select(1, index).copy_(layer.select(1, index));
    return kept;
  }
  std::vector<at::Tensor> sequences = layer.unbind(0);
  int64_t longest = 0;
  for (const at::Tensor& sequence : sequences) longest = std::max(longest, sequence.size(0));
  const int64_t index = SequenceToken(row, longest);
  for (at::Tensor& sequence : sequences) {
    at::Tensor kept = at::zeros_like(sequence);
    if (index >= 0 && index < sequence.size(0)) kept[index].copy_(sequence[index]);
    sequence = kept;
  }
  return at::_nested_tensor_from_tensor_list(sequences);
}

FusedActivation FusedActivation::Parse(const std::string& name, double min_value,
                                       double max_value) {
  static const auto* const kKinds = new absl::flat_hash_map<std::string, Kind>({
      {"none", Kind::kNone},
      {"relu", Kind::kRelu},
      {"hardtanh", Kind::kHardtanh},
      {"hardswish", Kind::kHardswish},
      {"hardsigmoid", Kind::kHardsigmoid},
      {"sigmoid", Kind::kSigmoid},
      {"silu", Kind::kSilu},
      {"gelu", Kind::kGelu},
  });
  const auto kind = kKinds->find(name);
  TORCH_CHECK(kind != kKinds->end(), "static_runtime: unknown fused activation '", name, "'");
  return FusedActivation{kind->second, min_value, max_value};
}

void ActivationInPlace(at::Tensor& tensor, const FusedActivation& activation) {
  switch (activation.kind) {
    case FusedActivation::Kind::kNone:
      return;
    case FusedActivation::Kind::kRelu:
      tensor.relu_();
      return;
    case FusedActivation::Kind::kHardtanh:
      at::hardtanh_(tensor, activation.min_value, activation.max_value);
      return;
    case FusedActivation::Kind::kHardswish:
      at::hardswish_(tensor);
      return;
    case FusedActivation::Kind::kHardsigmoid:
      at::hardsigmoid_(tensor);
      return;
    case FusedActivation::Kind::kSigmoid:
      tensor.sigmoid_();
      return;
    case FusedActivation::Kind::kSilu:
      at::silu_(tensor);
      return;
    case FusedActivation::Kind::kGelu:
      at::gelu_(tensor);
      return;
  }
}

at::Tensor Conv2dEpilogue(at::Tensor conv, const c10::optional<at::Tensor>& residual,
                          const FusedActivation& activation) {
  // A broadcasting or promoting residual may change the result's shape or
  // dtype: the out-of-place add gives exactly what aten::add gives.
  at::Tensor result = residual && residual->defined() ? at::add(conv, *residual) : conv;
  ActivationInPlace(result, activation);
  return result;
}

at::Tensor Conv2dFusedReference(const at::Tensor& input, const at::Tensor& weight,
                                const c10::optional<at::Tensor>& bias, at::IntArrayRef stride,
                                at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups,
                                const c10::optional<at::Tensor>& residual,
                                const FusedActivation& activation) {
  return Conv2dEpilogue(at::conv2d(input, weight, bias, stride, padding, dilation, groups),
                        residual, activation);
}

at::Tensor BatchNormReluReference(const at::Tensor& input, const c10::optional<at::Tensor>& weight,
                                  const c10::optional<at::Tensor>& bias,
                                  const c10::optional<at::Tensor>& running_mean,
                                  const c10::optional<at::Tensor>& running_var, bool training,
                                  double momentum, double eps, bool cudnn_enabled) {
  return at::batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
                        cudnn_enabled)
      .relu_();
}

at::Tensor LinearFusedReference(const at::Tensor& input, const at::Tensor& weight,
                                const c10::optional<at::Tensor>& bias,
                                const FusedActivation& activation) {
  at::Tensor result = at::linear(input, weight, bias);
  ActivationInPlace(result, activation);
  return result;
}

// Only the views whose copy pays off: reshape, flatten, reshape_as and
// contiguous (in the contiguous format; passes/copy_variants.h rewrites no
// other), which copy anyway when the strides do not allow a view (the copy
// then lands in planned memory), and permute, whose contiguous result later
// kernels read faster. Cheap views (select, transpose, squeeze, expand, ...) stay views: a
// view costs about 0.1 us where a copy is a kernel call (2 us for a
// 48-element select in a DLRM-style model, measured with `sr profile`).
const std::vector<CopyVariant>& CopyVariants() {
  static const auto* const kVariants = new std::vector<CopyVariant>{
      {"aten::reshape", "", "static_runtime::copy_reshape",
       [](const at::Tensor& self, const c10::IValue& shape, const c10::IValue&) {
         return self.reshape(shape.toIntVector());
       }},
      {"aten::flatten", "using_ints", "static_runtime::copy_flatten",
       [](const at::Tensor& self, const c10::IValue& start, const c10::IValue& end) {
         return self.flatten(start.toInt(), end.toInt());
       }},
      {"aten::permute", "", "static_runtime::copy_permute",
       [](const at::Tensor& self, const c10::IValue& dims, const c10::IValue&) {
         return self.permute(dims.toIntVector());
       }},
      {"aten::reshape_as", "", "static_runtime::copy_reshape_as",
       [](const at::Tensor& self, const c10::IValue& other, const c10::IValue&) {
         return self.reshape_as(other.toTensor());
       }},
      // (The copy of `self` is its contiguous form: the view is `self`.)
      {"aten::contiguous", "", "static_runtime::copy_contiguous",
       [](const at::Tensor& self, const c10::IValue& format, const c10::IValue&) {
         TORCH_CHECK(format.toMemoryFormat() == at::MemoryFormat::Contiguous,
                     "static_runtime::copy_contiguous makes contiguous tensors, not ",
                     format.toMemoryFormat());
         return self;
       }},
  };
  return *kVariants;
}

const std::vector<UnpackedSplit>& UnpackedSplits() {
  static const auto* const kSplits = new std::vector<UnpackedSplit>{
      {"static_runtime::split_unpacked", "aten::split", "Tensor",
       [](const at::Tensor& self, const c10::IValue& size, const c10::IValue& dim) {
         return at::split(self, size.toInt(), dim.toInt());
       }},
      {"static_runtime::split_with_sizes_unpacked", "aten::split_with_sizes", "",
       [](const at::Tensor& self, const c10::IValue& sizes, const c10::IValue& dim) {
         return at::split_with_sizes(self, sizes.toIntVector(), dim.toInt());
       }},
      {"static_runtime::chunk_unpacked", "aten::chunk", "",
       [](const at::Tensor& self, const c10::IValue& chunks, const c10::IValue& dim) {
         return at::chunk(self, chunks.toInt(), dim.toInt());
       }},
      {"static_runtime::unbind_unpacked", "aten::unbind", "int",
       [](const at::Tensor& self, const c10::IValue& dim, const c10::IValue&) {
         return at::unbind(self, dim.toInt());
       }},
  };
  return *kSplits;
}

void CheckPartCount(const char* op, size_t parts, size_t outputs) {
  TORCH_CHECK(parts == outputs, op, " produced ", parts, " tensors but the graph unpacks ",
              outputs);
}

namespace {

// The JIT operator registered for exactly `name`.`overload`.
std::shared_ptr<Operator> FindJitOperator(const std::string& name, const std::string& overload) {
  for (const auto& op : torch::jit::getAllOperatorsFor(c10::Symbol::fromQualString(name))) {
    if (op->schema().overload_name() == overload) return op;
  }
  TORCH_CHECK(false, "static_runtime: operator ", name, ".", overload,
              " is not registered with the JIT");
}

// `argument` without its alias annotation: the copy owns its result.
c10::Argument WithoutAlias(const c10::Argument& argument) {
  return c10::Argument(argument.name(), argument.type(), argument.N(), argument.default_value(),
                       argument.kwarg_only());
}

std::vector<c10::Argument> WithoutAlias(const std::vector<c10::Argument>& arguments) {
  std::vector<c10::Argument> result;
  result.reserve(arguments.size());
  for (const auto& argument : arguments) result.push_back(WithoutAlias(argument));
  return result;
}

// The copying twin of a view op: runs the view op, then materializes it.
Operator MakeCopyVariant(const CopyVariant& variant) {
  std::shared_ptr<Operator> view_op = FindJitOperator(variant.view_op, variant.view_overload);
  const c10::FunctionSchema& view_schema = view_op->schema();
  Operation view = view_op->getOperation();
  return Operator(
      variant.copy_op, variant.view_overload, WithoutAlias(view_schema.arguments()),
      WithoutAlias(view_schema.returns()),
      [view](Stack& stack) mutable {
        view(stack);
        at::Tensor result = torch::jit::pop(stack).toTensor();
        torch::jit::push(stack, result.clone(at::MemoryFormat::Contiguous));
      },
      AliasAnalysisKind::FROM_SCHEMA);
}

// Pops the arguments of `node` (the last one is `dim`) and returns them.
std::pair<std::vector<at::Tensor>, int64_t> PopTensorsAndDim(const Node* node, Stack& stack) {
  const size_t num_tensors = node->inputs().size() - 1;
  const int64_t dim = torch::jit::pop(stack).toInt();
  std::vector<at::Tensor> tensors;
  tensors.reserve(num_tensors);
  for (const c10::IValue& value : torch::jit::last(stack, num_tensors)) {
    tensors.push_back(value.toTensor());
  }
  torch::jit::drop(stack, num_tensors);
  return {std::move(tensors), dim};
}

// An unpacked split (UnpackedSplits()) on the stack: pops its inputs, pushes
// a contiguous copy of each part.
Operation UnpackedSplitOp(const Node* node) {
  const UnpackedSplit* split = nullptr;
  for (const UnpackedSplit& entry : UnpackedSplits()) {
    if (node->kind().toQualString() == std::string(entry.op)) split = &entry;
  }
  TORCH_CHECK(split != nullptr, "static_runtime: no split named ", node->kind().toQualString());
  const size_t num_inputs = node->inputs().size();
  const size_t outputs = node->outputs().size();
  return [split, num_inputs, outputs](Stack& stack) {
    const c10::IValue none;
    const auto inputs = torch::jit::last(stack, num_inputs);
    std::vector<at::Tensor> parts = split->parts(
        inputs[0].toTensor(), num_inputs > 1 ? inputs[1] : none, num_inputs > 2 ? inputs[2] : none);
    torch::jit::drop(stack, num_inputs);
    CheckPartCount(split->op, parts.size(), outputs);
    for (const at::Tensor& part : parts) {
      torch::jit::push(stack, part.clone(at::MemoryFormat::Contiguous));
    }
  };
}

void RegisterAll() {
  std::vector<Operator> operators;
  operators.emplace_back("static_runtime::variadic_cat(...) -> Tensor",
                         torch::jit::OperationCreator([](const Node* node) -> Operation {
                           return [node](Stack& stack) {
                             auto [tensors, dim] = PopTensorsAndDim(node, stack);
                             torch::jit::push(stack, at::cat(tensors, dim));
                           };
                         }),
                         AliasAnalysisKind::FROM_SCHEMA);
  operators.emplace_back("static_runtime::variadic_stack(...) -> Tensor",
                         torch::jit::OperationCreator([](const Node* node) -> Operation {
                           return [node](Stack& stack) {
                             auto [tensors, dim] = PopTensorsAndDim(node, stack);
                             torch::jit::push(stack, at::stack(tensors, dim));
                           };
                         }),
                         AliasAnalysisKind::FROM_SCHEMA);

  // The outputs are fresh copies (FuseListUnpack only fuses when no one writes
  // to the input or the parts, so copies and views are indistinguishable).
  for (const UnpackedSplit& split : UnpackedSplits()) {
    operators.emplace_back(absl::StrCat(split.op, "(...) -> ..."),
                           torch::jit::OperationCreator(UnpackedSplitOp),
                           AliasAnalysisKind::FROM_SCHEMA);
  }

  // The outputs are the dict's values (never written: HoistDictLookups checks),
  // produced by a native node, so the runtime never plans their memory.
  operators.emplace_back("static_runtime::unpack_dict(...) -> ...",
                         torch::jit::OperationCreator([](const Node* node) -> Operation {
                           const size_t num_keys = node->inputs().size() - 1;
                           return [num_keys](Stack& stack) {
                             std::vector<c10::IValue> keys = torch::jit::pop(stack, num_keys);
                             c10::impl::GenericDict dict = torch::jit::pop(stack).toGenericDict();
                             for (const c10::IValue& key : keys) {
                               auto found = dict.find(key);
                               TORCH_CHECK(found != dict.end(), "KeyError: ", key);
                               torch::jit::push(stack, found->value());
                             }
                           };
                         }),
                         AliasAnalysisKind::FROM_SCHEMA);

  // The outputs are the tuples' elements, in order.
  operators.emplace_back("static_runtime::var_tuple_unpack(...) -> ...",
                         torch::jit::OperationCreator([](const Node* node) -> Operation {
                           const size_t num_tuples = node->inputs().size();
                           return [num_tuples](Stack& stack) {
                             std::vector<c10::IValue> tuples = torch::jit::pop(stack, num_tuples);
                             for (const c10::IValue& tuple : tuples) {
                               for (const c10::IValue& element : tuple.toTupleRef().elements()) {
                                 torch::jit::push(stack, element);
                               }
                             }
                           };
                         }),
                         AliasAnalysisKind::FROM_SCHEMA);

  operators.emplace_back(
      "static_runtime::conv2d_fused(Tensor input, Tensor weight, Tensor? bias, int[] stride, "
      "int[] padding, int[] dilation, int groups, Tensor? residual, str activation, "
      "float min_value, float max_value) -> Tensor",
      Operation([](Stack& stack) {
        const double max_value = torch::jit::pop(stack).toDouble();
        const double min_value = torch::jit::pop(stack).toDouble();
        const FusedActivation activation =
            FusedActivation::Parse(torch::jit::pop(stack).toStringRef(), min_value, max_value);
        const c10::optional<at::Tensor> residual = torch::jit::pop(stack).toOptional<at::Tensor>();
        const int64_t groups = torch::jit::pop(stack).toInt();
        const std::vector<int64_t> dilation = torch::jit::pop(stack).toIntVector();
        const std::vector<int64_t> padding = torch::jit::pop(stack).toIntVector();
        const std::vector<int64_t> stride = torch::jit::pop(stack).toIntVector();
        const c10::optional<at::Tensor> bias = torch::jit::pop(stack).toOptional<at::Tensor>();
        const at::Tensor weight = torch::jit::pop(stack).toTensor();
        const at::Tensor input = torch::jit::pop(stack).toTensor();
        torch::jit::push(stack, Conv2dFusedReference(input, weight, bias, stride, padding, dilation,
                                                     groups, residual, activation));
      }),
      AliasAnalysisKind::FROM_SCHEMA);

  operators.emplace_back(
      "static_runtime::linear_fused(Tensor input, Tensor weight, Tensor? bias, str activation, "
      "float min_value, float max_value) -> Tensor",
      Operation([](Stack& stack) {
        const double max_value = torch::jit::pop(stack).toDouble();
        const double min_value = torch::jit::pop(stack).toDouble();
        const FusedActivation activation =
            FusedActivation::Parse(torch::jit::pop(stack).toStringRef(), min_value, max_value);
        const c10::optional<at::Tensor> bias = torch::jit::pop(stack).toOptional<at::Tensor>();
        const at::Tensor weight = torch::jit::pop(stack).toTensor();
        const at::Tensor input = torch::jit::pop(stack).toTensor();
        torch::jit::push(stack, LinearFusedReference(input, weight, bias, activation));
      }),
      AliasAnalysisKind::FROM_SCHEMA);

  operators.emplace_back(
      "static_runtime::batch_norm_relu(Tensor input, Tensor? weight, Tensor? bias, "
      "Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps, "
      "bool cudnn_enabled) -> Tensor",
      Operation([](Stack& stack) {
        const bool cudnn_enabled = torch::jit::pop(stack).toBool();
        const double eps = torch::jit::pop(stack).toDouble();
        const double momentum = torch::jit::pop(stack).toDouble();
        const bool training = torch::jit::pop(stack).toBool();
        const c10::optional<at::Tensor> running_var =
            torch::jit::pop(stack).toOptional<at::Tensor>();
        const c10::optional<at::Tensor> running_mean =
            torch::jit::pop(stack).toOptional<at::Tensor>();
        const c10::optional<at::Tensor> bias = torch::jit::pop(stack).toOptional<at::Tensor>();
        const c10::optional<at::Tensor> weight = torch::jit::pop(stack).toOptional<at::Tensor>();
        const at::Tensor input = torch::jit::pop(stack).toTensor();
        torch::jit::push(
            stack, BatchNormReluReference(input, weight, bias, running_mean, running_var, training,
                                          momentum, eps, cudnn_enabled));
      }),
      AliasAnalysisKind::FROM_SCHEMA);

  // ATen's ops under our names (literals, as for maybe_copy_to below).
  struct Renamed {
    const char* ours;
    const char* atens;
    const char* overload;
  };
  for (const Renamed& renamed : std::initializer_list<Renamed>{
           {"static_runtime::transformer_encoder_layer", "aten::_transformer_encoder_layer_fwd",
            ""},
           {"static_runtime::multi_head_attention", "aten::_native_multi_head_attention", ""},
           {"static_runtime::lstm_fast_gates", "aten::lstm", "input"},
           {"static_runtime::lstm_fast_gates", "aten::lstm", "data"},
           {"static_runtime::gru_fast_gates", "aten::gru", "input"},
           {"static_runtime::gru_fast_gates", "aten::gru", "data"},
           {"static_runtime::rnn_tanh_fast_gates", "aten::rnn_tanh", "input"},
           {"static_runtime::rnn_tanh_fast_gates", "aten::rnn_tanh", "data"},
           {"static_runtime::lstm_cell_fast_gates", "aten::lstm_cell", ""},
           {"static_runtime::gru_cell_fast_gates", "aten::gru_cell", ""}}) {
    std::shared_ptr<Operator> op = FindJitOperator(renamed.atens, renamed.overload);
    operators.emplace_back(renamed.ours, renamed.overload, op->schema().arguments(),
                           op->schema().returns(), op->getOperation(),
                           AliasAnalysisKind::FROM_SCHEMA);
  }

  {
    std::shared_ptr<Operator> layer = FindJitOperator("aten::_transformer_encoder_layer_fwd", "");
    // The layer's arguments without their defaults: one without follows them.
    std::vector<c10::Argument> arguments;
    for (const c10::Argument& argument : layer->schema().arguments()) {
      arguments.emplace_back(argument.name(), argument.type());
    }
    arguments.emplace_back("row", c10::IntType::get());
    Operation run_layer = layer->getOperation();
    // A literal, as above.
    operators.emplace_back(
        "static_runtime::transformer_encoder_layer_row", "", std::move(arguments),
        layer->schema().returns(), Operation([run_layer](Stack& stack) mutable {
          const int64_t row = torch::jit::pop(stack).toInt();
          run_layer(stack);
          torch::jit::push(stack, KeepSequenceRow(torch::jit::pop(stack).toTensor(), row));
        }),
        AliasAnalysisKind::FROM_SCHEMA);
  }

  operators.emplace_back(
      "static_runtime::fused_pointwise(...) -> ...",
      torch::jit::OperationCreator([](const Node* node) -> Operation {
        auto code =
            std::make_shared<torch::jit::Code>(node->g(c10::attr::Subgraph), "fused_pointwise");
        return [code](Stack& stack) { torch::jit::InterpreterState(*code).run(stack); };
      }),
      AliasAnalysisKind::FROM_SCHEMA);

  operators.emplace_back("static_runtime::owned_ref(t(a) x) -> t(a)",
                         Operation([](Stack& stack) {}), AliasAnalysisKind::FROM_SCHEMA);

  for (const char* overload : {"dtype", "other", "prim_dtype"}) {
    std::shared_ptr<Operator> to = FindJitOperator("aten::to", overload);
    // A literal, not kMaybeCopyTo: kernels register (and so call this) during
    // static initialization, possibly before that global is initialized.
    operators.emplace_back("static_runtime::maybe_copy_to", overload, to->schema().arguments(),
                           to->schema().returns(), to->getOperation(),
                           AliasAnalysisKind::FROM_SCHEMA);
  }

  for (const CopyVariant& variant : CopyVariants()) {
    operators.push_back(MakeCopyVariant(variant));
  }
  for (Operator& op : operators) torch::jit::registerOperator(std::move(op));
}

}  // namespace

bool OnlyReadsInputs(c10::Symbol kind) {
  return kind == kVariadicCat || kind == kVariadicStack || kind == kFusedPointwise ||
         kind == kSplitUnpacked || kind == kSplitWithSizesUnpacked || kind == kChunkUnpacked ||
         kind == kUnbindUnpacked;
}

void EnsureOperatorsRegistered() {
  static std::once_flag once;
  std::call_once(once, RegisterAll);
}

}  // namespace ops
}  // namespace static_runtime
