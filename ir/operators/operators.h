// The operators that preparation introduces, in the `static_runtime::`
// namespace. They are registered with the TorchScript JIT as real operators (so
// the JIT interpreter can run a prepared graph and tests can compare it with
// the original); the runtime binds them to its own kernels.
//
// Names are chosen not to collide with the operators of PyTorch's own Static
// Runtime, which live in the same namespace inside libtorch_cpu.so.
#ifndef STATIC_RUNTIME_IR_OPERATORS_OPERATORS_H_
#define STATIC_RUNTIME_IR_OPERATORS_OPERATORS_H_

#include <string>
#include <vector>

#include "ATen/core/Tensor.h"
#include "ATen/core/interned_strings.h"
#include "ATen/core/ivalue.h"

namespace static_runtime {
namespace ops {

// variadic_cat(Tensor... tensors, int dim) -> Tensor
extern const c10::Symbol kVariadicCat;
// variadic_stack(Tensor... tensors, int dim) -> Tensor
extern const c10::Symbol kVariadicStack;
// <op>_unpacked(<the op's arguments>) -> Tensor..., one fresh (contiguous copy)
// output per list element: see UnpackedSplits() below.
extern const c10::Symbol kSplitUnpacked;
extern const c10::Symbol kSplitWithSizesUnpacked;
extern const c10::Symbol kChunkUnpacked;
extern const c10::Symbol kUnbindUnpacked;
// unpack_dict(Dict d, key...) -> value..., one output per key
extern const c10::Symbol kUnpackDict;
// var_tuple_unpack(Tuple t1, Tuple t2, ...) -> (the elements of t1, then of
// t2, ...): adjacent prim::TupleUnpack nodes as one, see UseVarTupleUnpack.
extern const c10::Symbol kVarTupleUnpack;
// owned_ref(t x) -> t: a reference the runtime owns and may hand out.
extern const c10::Symbol kOwnedRef;
// maybe_copy_to.<overload>(<aten::to's arguments>): aten::to, whose result the
// runtime may place in memory it owns when a conversion happens.
extern const c10::Symbol kMaybeCopyTo;

// conv2d_fused(Tensor input, Tensor weight, Tensor? bias, int[] stride,
//              int[] padding, int[] dilation, int groups, Tensor? residual,
//              str activation, float min_value, float max_value) -> Tensor
// = activation(conv2d(input, weight, bias, ...) + residual), see
// FuseConvolutions; activation is "none", "relu", "hardtanh" (clamps to
// [min_value, max_value]), "hardswish", "hardsigmoid", "sigmoid", "silu" or
// "gelu" (approximate 'none').
extern const c10::Symbol kConv2dFused;
// conv2d_fused's and linear_fused's activation, its name parsed once, with
// the bounds hardtanh clamps to.
struct FusedActivation {
  enum class Kind { kNone, kRelu, kHardtanh, kHardswish, kHardsigmoid, kSigmoid, kSilu, kGelu };
  Kind kind = Kind::kNone;
  double min_value = 0;
  double max_value = 0;
  // Throws, naming it, for a name not listed above.
  static FusedActivation Parse(const std::string& name, double min_value, double max_value);
};
// conv2d_fused's epilogue as ATen computes it: `conv` + residual (when
// given), then the activation; the result may be `conv` itself, modified.
at::Tensor Conv2dEpilogue(at::Tensor conv, const c10::optional<at::Tensor>& residual,
                          const FusedActivation& activation);
// conv2d_fused as the JIT computes it: ATen's conv2d, then Conv2dEpilogue.
at::Tensor Conv2dFusedReference(const at::Tensor& input, const at::Tensor& weight,
                                const c10::optional<at::Tensor>& bias, at::IntArrayRef stride,
                                at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups,
                                const c10::optional<at::Tensor>& residual,
                                const FusedActivation& activation);
// Applies conv2d_fused's `activation` to `tensor` in place.
void ActivationInPlace(at::Tensor& tensor, const FusedActivation& activation);

// batch_norm_relu(<aten::batch_norm's arguments>) -> Tensor
// = relu(batch_norm(...)), see FuseBatchNormRelu.
extern const c10::Symbol kBatchNormRelu;
// batch_norm_relu as the JIT computes it: ATen's batch_norm, then relu.
at::Tensor BatchNormReluReference(const at::Tensor& input, const c10::optional<at::Tensor>& weight,
                                  const c10::optional<at::Tensor>& bias,
                                  const c10::optional<at::Tensor>& running_mean,
                                  const c10::optional<at::Tensor>& running_var, bool training,
                                  double momentum, double eps, bool cudnn_enabled);

// linear_fused(Tensor input, Tensor weight, Tensor? bias, str activation,
//              float min_value, float max_value) -> Tensor
// = activation(linear(input, weight, bias)), see FuseLinears; the
// activations are conv2d_fused's.
extern const c10::Symbol kLinearFused;
// linear_fused as the JIT computes it: ATen's linear, then the activation.
at::Tensor LinearFusedReference(const at::Tensor& input, const at::Tensor& weight,
                                const c10::optional<at::Tensor>& bias,
                                const FusedActivation& activation);

// transformer_encoder_layer(<aten::_transformer_encoder_layer_fwd's
// arguments>) -> Tensor: that op (the fast path of nn.TransformerEncoderLayer
// in eval mode) with frozen weights, see PrepackTransformerLayers; the JIT
// runs ATen's op.
extern const c10::Symbol kTransformerEncoderLayer;

// transformer_encoder_layer_row(<transformer_encoder_layer's arguments>,
// int row) -> Tensor: that layer's result at token `row` of each sequence
// (a negative `row` counts from the end of the longest sequence, as
// `x.to_padded_tensor(0.0)[:, row]` does) and 0 at every other token, in
// the layer's own form (dense [B, T, D], or nested when the source is); see
// PruneEncoderRows. The JIT runs ATen's layer, then KeepSequenceRow.
extern const c10::Symbol kTransformerEncoderLayerRow;
// `layer` (dense [B, T, D] or nested of [length, D] sequences) with every
// token but `row` of each sequence 0: see transformer_encoder_layer_row.
at::Tensor KeepSequenceRow(const at::Tensor& layer, int64_t row);
// The token transformer_encoder_layer_row keeps in each sequence: `row`, or
// when negative `row` from the end of the longest sequence (the padded
// result's length). It may fall outside a sequence, which then keeps none.
int64_t SequenceToken(int64_t row, int64_t longest);

// multi_head_attention(<aten::_native_multi_head_attention's arguments>) ->
// (Tensor, Tensor): that op (the fast path of nn.MultiheadAttention in eval
// mode) with frozen weights, see PrepackTransformerLayers; the JIT runs
// ATen's op.
extern const c10::Symbol kMultiHeadAttention;

// lstm_fast_gates.input, .data(<aten::lstm's arguments of that overload>),
// gru_fast_gates and rnn_tanh_fast_gates (aten::gru's, aten::rnn_tanh's),
// lstm_cell_fast_gates and gru_cell_fast_gates (aten::lstm_cell's,
// aten::gru_cell's): those networks and cells with frozen weights, whose
// kernels compute the gates' sigmoid and tanh by faster functions within a
// declared bound (see UseFastRnnGates); the JIT runs ATen's op.
extern const c10::Symbol kLstmFastGates;
extern const c10::Symbol kGruFastGates;
extern const c10::Symbol kRnnTanhFastGates;
extern const c10::Symbol kLstmCellFastGates;
extern const c10::Symbol kGruCellFastGates;

// fused_pointwise(...) -> ...: a run of elementwise nodes (its Subgraph
// attribute) as one node, see FusePointwise; the JIT runs the subgraph. Its
// first `kUsedOutputs` (an int attribute) outputs are used after the run.
extern const c10::Symbol kFusedPointwise;
extern const c10::Symbol kUsedOutputs;

// Whether `kind` is one of the operators above whose variadic schema hides
// that they only read their inputs and return fresh tensors: variadic_cat,
// variadic_stack, the unpacked splits and fused_pointwise. (The JIT's alias
// analysis treats a variadic schema conservatively.)
bool OnlyReadsInputs(c10::Symbol kind);

// A view op overload and the copying op that replaces it. The copy has the
// view's arguments and overload name, and a fresh (non-aliasing) result.
struct CopyVariant {
  // The view itself, of the node's first input and its next two (None when
  // the op has fewer): what the copy's kernels materialize.
  using View = at::Tensor (*)(const at::Tensor& self, const c10::IValue& first,
                              const c10::IValue& second);
  const char* view_op;        // e.g. "aten::flatten"
  const char* view_overload;  // e.g. "using_ints"; "" for the default overload
  const char* copy_op;        // e.g. "static_runtime::copy_flatten"
  View view;
};
const std::vector<CopyVariant>& CopyVariants();

// split, split_with_sizes, chunk and unbind with one output per part
// (FuseListUnpack): each unpacked op, the list op it replaces, and the parts
// it computes (views of the input, of its first input and its next two, None
// when the op has fewer). The JIT operator and the kernels copy the parts.
struct UnpackedSplit {
  using Parts = std::vector<at::Tensor> (*)(const at::Tensor& self, const c10::IValue& first,
                                            const c10::IValue& second);
  const char* op;             // e.g. "static_runtime::split_unpacked"
  const char* list_op;        // e.g. "aten::split"
  const char* list_overload;  // e.g. "Tensor"
  Parts parts;
};
const std::vector<UnpackedSplit>& UnpackedSplits();
// Throws (c10::Error) unless a split gave as many parts as its node unpacks.
void CheckPartCount(const char* op, size_t parts, size_t outputs);

// Makes sure the operators above are registered with the JIT. Registration
// happens at static initialization; calling this keeps the linker from
// dropping it and is cheap.
void EnsureOperatorsRegistered();

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_IR_OPERATORS_OPERATORS_H_
