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

KernelOp KernelOp::Overload(absl::string_view name, absl::string_view overload) {
  return KernelOp{std::string(name), std::string(overload)};
}

KernelOp KernelOp::AnyNodeOf(absl::string_view node_kind) {
  CHECK(!absl::StrContains(node_kind, "(")) << "a node kind, not a schema: " << node_kind;
  return KernelOp{std::string(node_kind), std::nullopt};
}

KernelRecord OutVariant(absl::string_view name, absl::string_view overload, Kernel kernel,
                        ErrorBound bound) {
  return {KernelOp::Overload(name, overload), NodeKind::kOutVariant, ForAnyNode(std::move(kernel)),
          std::move(bound)};
}

KernelRecord Native(absl::string_view name, absl::string_view overload, Kernel kernel) {
  return {KernelOp::Overload(name, overload), NodeKind::kNative, ForAnyNode(std::move(kernel)),
          nullptr};
}

KernelRecord NativeNodeKind(absl::string_view node_kind, KernelFactory factory) {
  return {KernelOp::AnyNodeOf(node_kind), NodeKind::kNative, std::move(factory), nullptr};
}

void KernelRegistry::Add(KernelRecord record, const char* file) {
  CHECK(record.kind != NodeKind::kFallback)
      << "fallback kernels are not registered: " << record.op.name;
  CHECK(record.factory) << "an empty kernel factory registered for " << record.op.name;
  const c10::Symbol symbol = c10::Symbol::fromQualString(record.op.name);
  absl::MutexLock lock(&mutex_);
  if (!record.op.overload) {
    AddEntry(Entry{record.op.name, std::nullopt, false, symbol, record.kind,
                   std::move(record.factory), std::move(record.bound), file});
    return;
  }
  for (const auto& op : torch::jit::getAllOperatorsFor(symbol)) {
    if (op->schema().overload_name() == *record.op.overload) {
      AddEntry(Entry{c10::toString(op->schema()), op->schema(), false, symbol, record.kind,
                     std::move(record.factory), std::move(record.bound), file});
      return;
    }
  }
  AddEntry(Entry{absl::StrCat(record.op.name, ".", *record.op.overload), std::nullopt, true, symbol,
                 record.kind, std::move(record.factory), ErrorBound(), file});
}

void KernelRegistry::AddEntry(Entry entry) {
  // Two kernels of one kind for one schema would leave the choice to the
  // order of registration: an error, naming both.
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

bool KernelRegistry::Matches(const Entry& entry, const torch::jit::Node* node) {
  if (node->kind() != entry.kind_symbol || entry.unknown_to_jit) return false;
  if (!entry.schema) return true;
  const c10::FunctionSchema* schema = node->maybeSchema();
  return schema != nullptr && *schema == *entry.schema;
}

std::optional<KernelRegistry::Selected> KernelRegistry::Find(const torch::jit::Node* node,
                                                             bool allow_out_variants) const {
  // The matching entries, in the order they are tried, copied out so that
  // factories run unlocked: a factory may look up other nodes (a fused
  // group's members) in this registry.
  struct Candidate {
    NodeKind kind;
    KernelFactory factory;
    ErrorBound error_bound;
  };
  std::vector<Candidate> candidates;
  {
    absl::ReaderMutexLock lock(&mutex_);
    auto of_kind = by_kind_.find(node->kind());
    if (of_kind == by_kind_.end()) return std::nullopt;
    for (NodeKind kind : {NodeKind::kOutVariant, NodeKind::kNative}) {
      if (kind == NodeKind::kOutVariant && !allow_out_variants) continue;
      for (size_t index : of_kind->second) {
        const Entry& entry = entries_[index];
        if (entry.kind == kind && Matches(entry, node)) {
          candidates.push_back({kind, entry.factory, entry.error_bound});
        }
      }
    }
  }
  for (Candidate& candidate : candidates) {
    KernelOffer offer = candidate.factory(node);
    if (!offer.declined()) {
      return Selected{std::move(offer).TakeKernel(), candidate.kind,
                      std::move(candidate.error_bound)};
    }
  }
  return std::nullopt;
}

std::vector<std::string> KernelRegistry::Registered(NodeKind kind) const {
  absl::ReaderMutexLock lock(&mutex_);
  std::vector<std::string> result;
  for (const Entry& entry : entries_) {
    if (entry.kind == kind) result.push_back(entry.op);
  }
  std::sort(result.begin(), result.end());
  return result;
}

std::vector<std::string> KernelRegistry::SourceFiles() const {
  std::vector<std::string> files;
  for (const RegisteredKernel& kernel : Kernels()) files.push_back(kernel.file);  // by file
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

std::vector<KernelRegistry::RegisteredKernel> KernelRegistry::Kernels() const {
  absl::ReaderMutexLock lock(&mutex_);
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
  absl::ReaderMutexLock lock(&mutex_);
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
