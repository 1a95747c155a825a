// The kernel registry: how ops/ tells the runtime which kernel runs a node.
//
// A kernel reads a node's inputs from, and writes its outputs to, value slots
// the runtime owns (NodeIO); it never sees the runtime itself. A kernel is
// one record (KernelRecord): the operator overload or node kind it is for,
// its kind, its factory and its error bound. Each kernel file adds its
// records from one function, each op family's package calls its files' from
// one function, and ops/kernels.cc lists the families: there is no
// registration at static initialization. A factory sees the node once, when
// a model is loaded, and returns Decline() when it does not support that
// node (its static types or constant arguments), so the node falls back
// instead of computing something different. Kernels are shared by every
// thread running the model: they must not keep mutable state between calls.
//
// Errors: a model's problems are absl::Status (from the runtime); the
// registry's own CHECKs fire only for mistakes in kernel registrations (a
// second kernel for one operator, an empty kernel offered), when the table
// is first read, in every test binary: nobody could handle them.
#ifndef STATIC_RUNTIME_OPS_CORE_REGISTRY_H_
#define STATIC_RUNTIME_OPS_CORE_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "ops/core/node_io.h"
#include "ops/core/node_kind.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

using Kernel = std::function<void(NodeIO&)>;

// What a kernel factory answers for a node: the kernel that runs it, or that
// it declines the node (then another kernel, or the JIT's fallback, takes
// it). Declining is said with Decline(); `nullptr` and empty functions do not
// compile or abort, so a factory cannot decline by accident.
class KernelOffer {
 public:
  // Any callable that takes a NodeIO&: a lambda, a function.
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Kernel> &&
                                                    !std::is_same_v<std::decay_t<F>, KernelOffer> &&
                                                    std::is_invocable_v<F&, NodeIO&>>>
  KernelOffer(F&& kernel) : kernel_(std::forward<F>(kernel)) {}  // NOLINT: implicit
  // A Kernel held in a std::function: it must not be empty.
  explicit KernelOffer(Kernel kernel);
  KernelOffer(std::nullptr_t) = delete;  // decline with Decline()

  static KernelOffer Decline() { return KernelOffer(); }
  bool declined() const { return !kernel_; }
  // The kernel; only for an offer not declined.
  Kernel TakeKernel() && { return std::move(kernel_); }

 private:
  KernelOffer() = default;
  Kernel kernel_;
};
inline KernelOffer Decline() { return KernelOffer::Decline(); }

using KernelFactory = std::function<KernelOffer(const torch::jit::Node*)>;

// Kernels compute what the node's JIT operator computes, bit for bit, unless
// they declare an error bound: a kernel that sums in another order (a blocked
// convolution) says, for the node's inputs and the exact (float64) result,
// how far each element of its float output may be from that exact result.
// The JIT operator's own float result is within the same bound, so the two
// differ by at most twice it. Used by the differential harness.
using ErrorBound =
    std::function<at::Tensor(const std::vector<c10::IValue>& inputs, const at::Tensor& exact)>;

// Which nodes a kernel is for: those of one JIT operator overload, matched
// by its exact schema ("aten::add", "Tensor"; "" is the default overload),
// or every node of one kind ("prim::ListConstruct": nodes with no operator,
// and our variadic static_runtime:: operators, whose factory looks at the
// node).
struct KernelOp {
  static KernelOp Overload(absl::string_view name, absl::string_view overload);
  static KernelOp AnyNodeOf(absl::string_view node_kind);

  std::string name;
  std::optional<std::string> overload;  // nullopt: every node of kind `name`
};

// One kernel: the nodes it is for, what it runs as (an out variant or a
// native kernel), the factory that binds it to a node when a model is
// loaded, and its error bound (empty: bit for bit the JIT's result).
struct KernelRecord {
  KernelOp op;
  NodeKind kind;
  KernelFactory factory;
  ErrorBound bound;
};

// Records for the common cases: `kernel` for every node of the JIT operator
// `name`.`overload`, as an out variant or a native kernel; `factory` for every
// node of kind `node_kind`, as a native kernel.
KernelRecord OutVariant(absl::string_view name, absl::string_view overload, Kernel kernel,
                        ErrorBound bound = nullptr);
KernelRecord Native(absl::string_view name, absl::string_view overload, Kernel kernel);
KernelRecord NativeNodeKind(absl::string_view node_kind, KernelFactory factory);

// Kernels by the nodes they are for. The runtime's registry is filled from
// the table of op families (ops/kernels.h); tests build their own. Adding
// and looking up may happen from several threads.
class KernelRegistry {
 public:
  // The one way to register a kernel. An operator overload the JIT does not
  // have is reported by SchemasUnknownToJit() and never matches. A second
  // kernel of one kind for one operator (the order of registration would
  // choose) is a programming error and aborts, naming both. `file` is where
  // the registration is (Bazel's path of the caller), for the kernel map.
  void Add(KernelRecord record, const char* file = __builtin_FILE());

  struct Selected {
    Kernel kernel;
    NodeKind kind;
    ErrorBound error_bound;  // empty: bit for bit the JIT operator's result
  };
  // The first kernel whose factory accepts `node`: out variants first (when
  // allowed), then native kernels. nullopt when none does. The entries are
  // indexed by node kind.
  std::optional<Selected> Find(const torch::jit::Node* node, bool allow_out_variants) const;

  // Every registered operator schema or node kind of `kind`, sorted.
  std::vector<std::string> Registered(NodeKind kind) const;

  // The registered schemas that do not name an operator registered with the
  // JIT with exactly that schema (a typo would make the kernel unreachable).
  std::vector<std::string> SchemasUnknownToJit() const;

  // The source files that registered kernels, sorted.
  std::vector<std::string> SourceFiles() const;

  // Every registered kernel: its operator schema or node kind, kind, the
  // file that registered it and whether it declares an error bound; sorted
  // by file, then operator.
  struct RegisteredKernel {
    std::string op;
    NodeKind kind;
    std::string file;
    bool bounded = false;
  };
  std::vector<RegisteredKernel> Kernels() const;

 private:
  struct Entry {
    std::string op;
    std::optional<c10::FunctionSchema> schema;  // nullopt: by node kind
    bool unknown_to_jit = false;
    c10::Symbol kind_symbol;
    NodeKind kind;
    KernelFactory factory;
    ErrorBound error_bound;
    std::string file;
  };
  static bool Matches(const Entry& entry, const torch::jit::Node* node);
  // Appends `entry`; a second kernel of its kind for its operator is fatal.
  void AddEntry(Entry entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  mutable absl::Mutex mutex_;
  std::vector<Entry> entries_ ABSL_GUARDED_BY(mutex_);
  // Node kind -> the indices of its entries in entries_, in registration order.
  absl::flat_hash_map<c10::Symbol, std::vector<size_t>> by_kind_ ABSL_GUARDED_BY(mutex_);
};

// A factory that gives `kernel` for every node it is asked about.
KernelFactory ForAnyNode(Kernel kernel);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CORE_REGISTRY_H_
