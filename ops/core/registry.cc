#include "ops/core/registry.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "torch/csrc/jit/runtime/operator.h"

namespace static_runtime {

KernelOffer::KernelOffer(Kernel kernel) : kernel_(std::move(kernel)) {
  CHECK(kernel_) << "an empty Kernel offered for a node: a factory declines with Decline()";
}

KernelFactory ForAnyNode(Kernel kernel) {
  CHECK(kernel) << "ForAnyNode of an empty Kernel";
  return [kernel = std::move(kernel)](const torch::jit::Node*) { return KernelOffer(kernel); };
}

void RegisterNativeNodeKind(absl::string_view node_kind, KernelFactory factory, const char* file) {
  KernelRegistry::Global().RegisterNodeKind(node_kind, NodeKind::kNative, std::move(factory), file);
}

void RegisterNativeOverload(absl::string_view name, absl::string_view overload, Kernel kernel,
                            const char* file) {
  KernelRegistry::Global().RegisterOverload(name, overload, NodeKind::kNative,
                                            ForAnyNode(std::move(kernel)), nullptr, file);
}

KernelRegistry& KernelRegistry::Global() {
  static auto* const registry = new KernelRegistry();
  return *registry;
}

void KernelRegistry::RegisterNodeKind(absl::string_view node_kind, NodeKind kind,
                                      KernelFactory factory, const char* file) {
  CHECK(kind != NodeKind::kFallback) << "fallback kernels are not registered: " << node_kind;
  CHECK(!absl::StrContains(node_kind, "(")) << "a node kind, not a schema: " << node_kind;
  Add(Entry{std::string(node_kind), std::nullopt, false,
            c10::Symbol::fromQualString(std::string(node_kind)), kind, std::move(factory),
            ErrorBound(), file});
}

void KernelRegistry::Add(Entry entry) {
  // Two kernels of one kind for one schema would leave the choice to the
  // link order: an error at startup, naming both.
  std::vector<size_t>& same_kind = by_kind_[entry.kind_symbol];
  for (size_t index : same_kind) {
    const Entry& other = entries_[index];
    const bool same_op =
        entry.schema && other.schema ? *entry.schema == *other.schema : entry.op == other.op;
    CHECK(!(same_op && other.kind == entry.kind))
        << "two kernels of one kind registered for one operator: '" << other.op << "' and '"
        << entry.op << "'";
  }
  same_kind.push_back(entries_.size());
  entries_.push_back(std::move(entry));
}

void KernelRegistry::RegisterOverload(absl::string_view name, absl::string_view overload,
                                      NodeKind kind, KernelFactory factory, ErrorBound error_bound,
                                      const char* file) {
  CHECK(kind != NodeKind::kFallback) << "fallback kernels are not registered: " << name;
  const c10::Symbol symbol = c10::Symbol::fromQualString(std::string(name));
  for (const auto& op : torch::jit::getAllOperatorsFor(symbol)) {
    if (op->schema().overload_name() == overload) {
      Add(Entry{c10::toString(op->schema()), op->schema(), false, symbol, kind, std::move(factory),
                std::move(error_bound), file});
      return;
    }
  }
  Add(Entry{absl::StrCat(name, ".", overload), std::nullopt, true, symbol, kind, std::move(factory),
            ErrorBound(), file});
}

bool KernelRegistry::Matches(const Entry& entry, const torch::jit::Node* node) const {
  if (node->kind() != entry.kind_symbol || entry.unknown_to_jit) return false;
  if (!entry.schema) return true;
  const c10::FunctionSchema* schema = node->maybeSchema();
  return schema != nullptr && *schema == *entry.schema;
}

std::optional<KernelRegistry::Selected> KernelRegistry::Find(const torch::jit::Node* node,
                                                             bool allow_out_variants) const {
  auto candidates = by_kind_.find(node->kind());
  if (candidates == by_kind_.end()) return std::nullopt;
  for (NodeKind kind : {NodeKind::kOutVariant, NodeKind::kNative}) {
    if (kind == NodeKind::kOutVariant && !allow_out_variants) continue;
    for (size_t index : candidates->second) {
      const Entry& entry = entries_[index];
      if (entry.kind != kind || !Matches(entry, node)) continue;
      KernelOffer offer = entry.factory(node);
      if (!offer.declined()) {
        return Selected{std::move(offer).TakeKernel(), kind, entry.error_bound};
      }
    }
  }
  return std::nullopt;
}

std::vector<std::string> KernelRegistry::Registered(NodeKind kind) const {
  std::vector<std::string> result;
  for (const Entry& entry : entries_) {
    if (entry.kind == kind) result.push_back(entry.op);
  }
  std::sort(result.begin(), result.end());
  return result;
}

std::vector<std::string> KernelRegistry::SourceFiles() const {
  std::vector<std::string> files;
  for (const Entry& entry : entries_) files.push_back(entry.file);
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

std::vector<KernelRegistry::RegisteredKernel> KernelRegistry::Kernels() const {
  std::vector<RegisteredKernel> kernels;
  for (const Entry& entry : entries_) {
    kernels.push_back({entry.op, entry.kind, entry.file, entry.error_bound != nullptr});
  }
  std::sort(kernels.begin(), kernels.end(),
            [](const RegisteredKernel& a, const RegisteredKernel& b) {
              return std::tie(a.file, a.op) < std::tie(b.file, b.op);
            });
  return kernels;
}

std::vector<std::string> KernelRegistry::SchemasUnknownToJit() const {
  std::vector<std::string> unknown;
  for (const Entry& entry : entries_) {
    if (entry.unknown_to_jit) {
      unknown.push_back(entry.op);
      continue;
    }
    if (!entry.schema) continue;
    bool found = false;
    for (const auto& op : torch::jit::getAllOperatorsFor(entry.kind_symbol)) {
      found = found || op->schema() == *entry.schema;
    }
    if (!found) unknown.push_back(entry.op);
  }
  return unknown;
}

}  // namespace static_runtime
