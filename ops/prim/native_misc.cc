// Native kernels for the scalar, string and list ops TorchScript emits around
// tensor code (argument checks of nn modules, error messages, flags): format,
// str, list copies, list comparisons and membership, string comparisons,
// any/all, find, warn, device (and its type name), grad and autocast queries,
// scalar tensors and item, as_tensor, to a device; and the fused op of
// nn.TransformerEncoderLayer, called directly (nn.MultiheadAttention's:
// ops/attention/multi_head_attention.cc). Same results and errors as
// the JIT's own operators, without a stack.
#include <cstdint>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>

#include "ATen/ATen.h"
#include "ATen/autocast_mode.h"
#include "absl/strings/str_cat.h"
#include "execution/run_scope.h"
#include "ops/core/registry.h"
#include "torch/csrc/jit/frontend/source_range.h"

namespace static_runtime {
namespace {

// Python's str.format with "{}" fields, as the JIT's aten::format: each "{}"
// takes the next argument, printed as the JIT prints values.
void Format(NodeIO& io) {
  const std::string& format = io.Input(0).toStringRef();
  std::stringstream text;
  size_t used = 0;
  for (size_t begin = 0;;) {
    const size_t field = format.find("{}", begin);
    if (field == std::string::npos) {
      text << format.substr(begin);
      break;
    }
    text << format.substr(begin, field - begin);
    TORCH_CHECK(used + 1 < io.num_inputs(), "Too few arguments for format string: ", format);
    text << io.Input(++used);
    begin = field + 2;
  }
  io.Output(0) = text.str();
}

// Python's str.find(substr, start, end) with negative and out-of-range bounds.
void Find(NodeIO& io) {
  const std::string& text = io.Input(0).toStringRef();
  const std::string& substr = io.Input(1).toStringRef();
  const int64_t size = static_cast<int64_t>(text.size());
  auto clamp = [size](int64_t index) {
    if (index < 0) index += size;
    return std::min(std::max<int64_t>(index, 0), size);
  };
  const int64_t start = clamp(io.Input(2).toInt());
  const int64_t end = io.Input(3).toInt() == -1 ? size : clamp(io.Input(3).toInt());
  int64_t found = -1;
  if (start <= end) {
    const size_t at = text.substr(0, end).find(substr, start);
    if (at != std::string::npos) found = static_cast<int64_t>(at);
  }
  io.Output(0) = found;
}

// Element-wise equality of two lists (int[], bool[], str[]).
bool ListsEqual(const c10::IValue& a, const c10::IValue& b) {
  c10::ArrayRef<c10::IValue> left = a.toListRef();
  c10::ArrayRef<c10::IValue> right = b.toListRef();
  if (left.size() != right.size()) return false;
  for (size_t i = 0; i < left.size(); ++i) {
    if (!(left[i] == right[i])) return false;
  }
  return true;
}

template <bool kAny>
void AnyOrAll(NodeIO& io) {
  for (const c10::IValue& element : io.Input(0).toListRef()) {
    const bool truthy = element.isBool() ? element.toBool() : element.toInt() != 0;
    if (truthy == kAny) {
      io.Output(0) = kAny;
      return;
    }
  }
  io.Output(0) = !kAny;
}

// aten::tensor.<float|int|bool>(t, *, dtype, device, requires_grad): a 0-dim
// tensor of the default float dtype, int64 or bool, then cast and moved.
void ScalarTensor(NodeIO& io, const at::Scalar& value, at::ScalarType natural) {
  at::Tensor tensor = at::scalar_tensor(value, at::TensorOptions().dtype(natural));
  const auto dtype = io.Input(1).toOptional<at::ScalarType>();
  const auto device = io.Input(2).toOptional<at::Device>();
  if ((dtype && *dtype != natural) || (device && !device->is_cpu())) {
    tensor = tensor.to(device.value_or(tensor.device()), dtype.value_or(natural));
  }
  if (io.Input(3).toBool()) tensor.set_requires_grad(true);
  io.Output(0) = std::move(tensor);
}

// aten::warn(message, stacklevel), which the JIT interpreter runs as an
// instruction of its own: it sends the message to LibTorch's warning handler,
// verbatim, with the file and line of the model's source it was scripted
// from, once per run at a numbered call site. Nodes without a source file
// (graphs not scripted from a file) run on the interpreter (ops/core/fallback.h).
KernelOffer Warn(const torch::jit::Node* node) {
  const std::shared_ptr<torch::jit::Source> source = node->sourceRange().source();
  if (source == nullptr || !source->filename().has_value()) return Decline();
  const std::string file = *source->filename();
  const auto line = static_cast<uint32_t>(source->starting_line_no() +
                                          source->lineno_for_offset(node->sourceRange().start()));
  const std::optional<int64_t> warn_id = node->hasAttribute(c10::attr::warn_id)
                                             ? std::optional<int64_t>(node->i(c10::attr::warn_id))
                                             : std::nullopt;
  return [file, line, warn_id](NodeIO& io) {
    if (warn_id.has_value() && !ShouldWarn(*warn_id)) return;
    c10::Warning::warn(c10::SourceLocation{"", file.c_str(), line}, io.Input(0).toStringRef(),
                       /*verbatim=*/true);
  };
}

}  // namespace

void RegisterNativeMiscKernels(KernelRegistry& registry) {
  registry.Add({KernelOp::Overload("aten::warn", ""), NodeKind::kNative, Warn});
  registry.Add(Native("aten::format", "", Format));
  registry.Add(Native("aten::str", "", [](NodeIO& io) {
    // An int (a loop index naming a dict key) and a device (the `"cpu" in
    // str(x.device)` checks of nn.MultiheadAttention's fast path) as the
    // stream prints them, without the stream.
    if (io.Input(0).isInt()) {
      io.Output(0) = absl::StrCat(io.Input(0).toInt());
      return;
    }
    if (io.Input(0).isDevice()) {
      io.Output(0) = io.Input(0).toDevice().str();
      return;
    }
    std::stringstream text;
    text << io.Input(0);
    io.Output(0) = text.str();
  }));
  registry.Add(Native("aten::find", "", Find));
  registry.Add(Native("aten::eq", "str", [](NodeIO& io) {
    io.Output(0) = io.Input(0).toStringRef() == io.Input(1).toStringRef();
  }));
  registry.Add(Native("aten::ne", "str", [](NodeIO& io) {
    io.Output(0) = io.Input(0).toStringRef() != io.Input(1).toStringRef();
  }));
  registry.Add(Native("prim::type", "", [](NodeIO& io) {
    io.Output(0) = c10::DeviceTypeName(io.Input(0).toDevice().type(), /*lower_case=*/true);
  }));
  registry.Add(
      Native("aten::item", "", [](NodeIO& io) { io.Output(0) = io.Input(0).toTensor().item(); }));
  // The JIT's as_tensor of a tensor: itself, or converted to another dtype or
  // device.
  registry.Add(Native("aten::as_tensor", "", [](NodeIO& io) {
    const at::Tensor& data = io.Input(0).toTensor();
    const at::ScalarType dtype =
        io.Input(1).isNone() ? data.scalar_type() : io.Input(1).toScalarType();
    const c10::Device device = io.Input(2).isNone() ? data.device() : io.Input(2).toDevice();
    io.Output(0) = dtype == data.scalar_type() && device == data.device()
                       ? data
                       : data.to(device, dtype, /*non_blocking=*/false, /*copy=*/false);
  }));
  // aten::to with a device (nn.utils.rnn's `sorted_indices.to(input.device)`),
  // as the JIT's prim_Device overload dispatches: itself when nothing is
  // asked, else ATen's to with what is given. (A copy asked for with neither
  // a device nor a dtype is a copy in its own dtype here; the JIT reads the
  // absent dtype there, which is undefined.)
  registry.Add(Native("aten::to", "prim_Device", [](NodeIO& io) {
    const at::Tensor& self = io.Input(0).toTensor();
    const auto device = io.Input(1).toOptional<c10::Device>();
    const auto dtype = io.Input(2).toOptional<at::ScalarType>();
    const bool non_blocking = io.Input(3).toBool(), copy = io.Input(4).toBool();
    if (!device && !dtype) {
      io.Output(0) = copy ? self.to(self.scalar_type(), non_blocking, /*copy=*/true) : self;
    } else if (!device) {
      io.Output(0) = self.to(*dtype, non_blocking, copy);
    } else if (!dtype) {
      io.Output(0) = self.to(*device, non_blocking, copy);
    } else {
      io.Output(0) = self.to(*device, *dtype, non_blocking, copy);
    }
  }));
  registry.Add(Native("aten::to", "device", [](NodeIO& io) {
    io.Output(0) = io.Input(0).toTensor().to(io.Input(1).toDevice(), io.Input(2).toScalarType(),
                                             io.Input(3).toBool(), io.Input(4).toBool(),
                                             io.Input(5).toOptional<c10::MemoryFormat>());
  }));
  // einsum(equation, tensors, path?): ATen's contraction (attention written
  // as "bhqd,bhkd->bhqk"), without the fallback's boxing.
  registry.Add(Native("aten::einsum", "", [](NodeIO& io) {
    const auto path = io.Input(2).toOptional<std::vector<int64_t>>();
    io.Output(0) = at::einsum(io.Input(0).toStringView(), io.Input(1).toTensorVector(),
                              path ? at::OptionalIntArrayRef(*path) : c10::nullopt);
  }));
  // where(condition): the indices of the nonzero elements, one tensor per
  // dimension (a detection model's box filters).
  registry.Add(Native("aten::where", "",
                      [](NodeIO& io) { io.Output(0) = at::where(io.Input(0).toTensor()); }));
  registry.Add(Native("aten::scatter", "src", [](NodeIO& io) {
    io.Output(0) = at::scatter(io.Input(0).toTensor(), io.Input(1).toInt(), io.Input(2).toTensor(),
                               io.Input(3).toTensor());
  }));
  for (const char* name : {"aten::list", "aten::copy"}) {  // list(l), l.copy()
    registry.Add(Native(name, "t", [](NodeIO& io) { io.Output(0) = io.Input(0).toList().copy(); }));
  }
  for (const char* overload : {"int_list", "bool_list", "str_list"}) {
    registry.Add(Native("aten::eq", overload,
                        [](NodeIO& io) { io.Output(0) = ListsEqual(io.Input(0), io.Input(1)); }));
    registry.Add(Native("aten::ne", overload,
                        [](NodeIO& io) { io.Output(0) = !ListsEqual(io.Input(0), io.Input(1)); }));
  }
  for (const char* overload : {"int_list", "str_list", "float_list"}) {
    registry.Add(Native("aten::__contains__", overload, [](NodeIO& io) {
      bool found = false;
      for (const c10::IValue& element : io.Input(0).toListRef()) {
        found = found || element == io.Input(1);
      }
      io.Output(0) = found;
    }));
  }
  registry.Add(Native("aten::any", "bool", AnyOrAll<true>));
  registry.Add(Native("aten::any", "int", AnyOrAll<true>));
  registry.Add(Native("aten::all", "bool", AnyOrAll<false>));
  registry.Add(Native("aten::all", "int", AnyOrAll<false>));
  registry.Add(Native("aten::sum", "int", [](NodeIO& io) {
    int64_t sum = 0;
    for (const c10::IValue& element : io.Input(0).toListRef()) sum += element.toInt();
    io.Output(0) = sum;
  }));
  registry.Add(Native("prim::is_cuda", "",
                      [](NodeIO& io) { io.Output(0) = io.Input(0).toTensor().is_cuda(); }));
  registry.Add(Native("prim::is_quantized", "",
                      [](NodeIO& io) { io.Output(0) = io.Input(0).toTensor().is_quantized(); }));
  registry.Add(Native("prim::is_nested", "",
                      [](NodeIO& io) { io.Output(0) = io.Input(0).toTensor().is_nested(); }));
  registry.Add(Native("prim::requires_grad", "",
                      [](NodeIO& io) { io.Output(0) = io.Input(0).toTensor().requires_grad(); }));
  registry.Add(Native("aten::is_floating_point", "", [](NodeIO& io) {
    io.Output(0) = io.Input(0).toTensor().is_floating_point();
  }));
  registry.Add(Native("aten::is_grad_enabled", "",
                      [](NodeIO& io) { io.Output(0) = at::GradMode::is_enabled(); }));
  registry.Add(Native("aten::len", "str", [](NodeIO& io) {
    io.Output(0) = static_cast<int64_t>(io.Input(0).toStringRef().size());
  }));
  registry.Add(Native("aten::add", "str", [](NodeIO& io) {
    io.Output(0) = io.Input(0).toStringRef() + io.Input(1).toStringRef();
  }));
  registry.Add(Native("aten::add", "t", [](NodeIO& io) {
    c10::impl::GenericList list = io.Input(0).toList().copy();
    for (const c10::IValue& element : io.Input(1).toListRef()) list.push_back(element);
    io.Output(0) = std::move(list);
  }));
  // Ops that return their input when it already has the layout or dtype
  // asked for (the out variants in out_copies.cc decline in graphs with
  // in-place writes, where a copy and the input could be told apart).
  registry.Add(Native("aten::contiguous", "", [](NodeIO& io) {
    io.Output(0) = io.Input(0).toTensor().contiguous(io.Input(1).toMemoryFormat());
  }));
  registry.Add(Native("aten::type_as", "", [](NodeIO& io) {
    io.Output(0) = io.Input(0).toTensor().type_as(io.Input(1).toTensor());
  }));
  // nn.TransformerEncoderLayer's fast path in inference.
  registry.Add(Native("aten::_transformer_encoder_layer_fwd", "", [](NodeIO& io) {
    auto tensor = [&](size_t i) -> const at::Tensor& { return io.Input(i).toTensor(); };
    io.Output(0) = at::_transformer_encoder_layer_fwd(
        tensor(0), io.Input(1).toInt(), io.Input(2).toInt(), tensor(3), tensor(4), tensor(5),
        tensor(6), io.Input(7).toBool(), io.Input(8).toBool(), io.Input(9).toDouble(), tensor(10),
        tensor(11), tensor(12), tensor(13), tensor(14), tensor(15), tensor(16), tensor(17),
        io.Input(18).toOptional<at::Tensor>(), io.Input(19).toOptional<int64_t>());
  }));
  registry.Add(Native("aten::is_autocast_enabled", "",
                      [](NodeIO& io) { io.Output(0) = at::autocast::is_enabled(); }));
  registry.Add(Native("aten::is_autocast_cpu_enabled", "",
                      [](NodeIO& io) { io.Output(0) = at::autocast::is_cpu_enabled(); }));
  registry.Add(Native("aten::tensor", "float", [](NodeIO& io) {
    ScalarTensor(io, io.Input(0).toDouble(), c10::typeMetaToScalarType(c10::get_default_dtype()));
  }));
  registry.Add(Native("aten::tensor", "int",
                      [](NodeIO& io) { ScalarTensor(io, io.Input(0).toInt(), at::kLong); }));
  registry.Add(Native("aten::tensor", "bool",
                      [](NodeIO& io) { ScalarTensor(io, io.Input(0).toBool(), at::kBool); }));
}

}  // namespace static_runtime
