// Loading TorchScript from the outside world: `.pt` archives (as bytes or a
// file), IR text and TorchScript source. Every entry point turns LibTorch's
// exceptions into an absl::Status whose message names what was wrong (the path,
// the IR line, the source error); none of them throws or crashes on bad input.
#ifndef STATIC_RUNTIME_LOAD_LOAD_H_
#define STATIC_RUNTIME_LOAD_LOAD_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "torch/csrc/jit/api/module.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Loads a TorchScript archive written by `torch.jit.save` (or ExportModule),
// onto the CPU. NotFound if the file does not exist or cannot be read;
// InvalidArgument if it is not a TorchScript archive.
absl::StatusOr<torch::jit::Module> LoadModuleFromFile(const std::string& path);

// The bytes of a file; NotFound naming the path if it cannot be read.
absl::StatusOr<std::string> ReadModelFile(const std::string& path);

// Same as LoadModuleFromFile, from the archive's bytes.
absl::StatusOr<torch::jit::Module> LoadModuleFromBytes(absl::string_view bytes);

// The method a module's forward is compiled as: "forward", or "forward__0"
// for an overloaded forward (nn.LSTM/GRU scripted alone compile one method
// per overload; the first is the tensor one).
std::string ForwardMethodName(const torch::jit::Module& module);

// That method's schema without its `self` argument: the arguments a caller
// passes, and the returns.
c10::FunctionSchema ForwardSchema(const torch::jit::Module& module);

// Parses graph IR text (as printed by Graph::toString()) into a new graph.
// Tensor constants in the text are accepted; those printed as `<Tensor>` get
// deterministic values (seeded normal samples for floating types, zeros
// otherwise), the same on every run. InvalidArgument on malformed IR,
// and on brackets nested more than 64 deep (LibTorch's parser would overflow
// the stack). With `keep_value_names`, values named in the text (not just
// numbered) keep their names as debug names.
absl::StatusOr<std::shared_ptr<torch::jit::Graph>> ParseGraphIR(absl::string_view ir,
                                                                bool keep_value_names = false);

// A named module parameter or buffer, registered before the source is compiled.
using NamedTensor = std::pair<std::string, at::Tensor>;

// Builds a module from TorchScript source text (its methods, e.g. `forward`),
// registering `attributes` as buffers first so the source can use `self.<name>`;
// besides the builtins it knows `fork(self.method, *args)` (a forked call).
// InvalidArgument with the compiler's message on bad source.
absl::StatusOr<torch::jit::Module> ModuleFromSource(
    absl::string_view source, const std::vector<NamedTensor>& attributes = {});

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_LOAD_LOAD_H_
