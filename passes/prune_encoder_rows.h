// PruneEncoderRows: a transformer encoder layer whose result the model reads
// at one token only computes that token. A classifier over an encoder reads
// its first token (`encoder(x)[:, 0]`, BERT's and ViT's class token), a
// generator its last (`[:, -1]`); the last layer still needs every token as
// a key and a value, but its queries, output projection, norms and
// feed-forward only for the token read: for a 2-layer encoder about a third
// of the model's products.
//
// A static_runtime::transformer_encoder_layer (see PrepackTransformerLayers)
// becomes static_runtime::transformer_encoder_layer_row with that token
// when every read of its result, followed through the results of `if`s
// (nn.TransformerEncoder's fast-path checks), `to_padded_tensor(x, p)` (its
// nested result padded back) and `layer_norm` over the last dimension (its
// final norm), is `select(_, 1, row)` (or dim -2) with one constant `row`.
// Those reads see the same values: the row layer's result is the layer's at
// that token and 0 elsewhere, and nothing reads elsewhere.
#ifndef STATIC_RUNTIME_PASSES_PRUNE_ENCODER_ROWS_H_
#define STATIC_RUNTIME_PASSES_PRUNE_ENCODER_ROWS_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool PruneEncoderRows(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_PRUNE_ENCODER_ROWS_H_
