#include "runtime/block_runner.h"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "errors/status_from_exception.h"
#include "errors/status_macros.h"
#include "execution/run_scope.h"
#include "ir/graph_util.h"
#include "runtime/arguments.h"

namespace static_runtime {
namespace {

// A node input for an error message: scalars by their value alone.
std::string DescribeInput(const c10::IValue& value) {
  if (value.isTensor()) return DescribeTensor(value.toTensor());
  if (value.isInt() || value.isDouble() || value.isBool() || value.isNone()) {
    std::ostringstream text;
    text << value;
    return text.str();
  }
  return value.tagKind();
}

std::exception_ptr& NodeException() {
  thread_local std::exception_ptr exception;
  return exception;
}

// Called in the handler of `e`: keeps it for TakeNodeException.
absl::Status NodeError(const NodePlan& node, const c10::IValue* values, const std::exception& e) {
  NodeException() = std::current_exception();
  std::vector<std::string> inputs;
  for (ValueIndex slot : node.inputs()) inputs.push_back(DescribeInput(values[slot]));
  const absl::Status status = StatusFromException(
      e, absl::StrCat("node ", node.info->position, " (", node.info->node->kind().toQualString(),
                      ") at ", SourceOf(node.info->node), " failed: "));
  return absl::Status(status.code(), absl::StrCat(status.message(), "; inputs: (",
                                                  absl::StrJoin(inputs, ", "), ")"));
}

struct NoObserver {
  void Before(const NodePlan&, const NodeIO&) {}
  void After(const NodePlan&, const NodeIO&) {}
};

template <typename Observer>
absl::Status Run(const BlockPlan& block, c10::IValue* values, Observer& observer);

template <typename Observer>
absl::Status RunIf(const NodePlan& node, c10::IValue* values, Observer& observer) {
  const BlockPlan& taken = node.blocks[values[node.inputs()[0]].toBool() ? 0 : 1];
  RETURN_IF_ERROR(Run(taken, values, observer));
  for (size_t i = 0; i < node.outputs().size(); ++i) {
    values[node.outputs()[i]] = values[taken.outputs[i]];
  }
  return absl::OkStatus();
}

// Inputs: (max trip count, initial condition, carried...); body parameters:
// (iteration, carried...); body results: (condition, carried...); outputs:
// (carried...).
template <typename Observer>
absl::Status RunLoop(const NodePlan& node, c10::IValue* values, Observer& observer) {
  const BlockPlan& body = node.blocks[0];
  const size_t num_carried = node.outputs().size();
  const int64_t max_trip_count = values[node.inputs()[0]].toInt();
  bool condition = values[node.inputs()[1]].toBool();
  for (size_t i = 0; i < num_carried; ++i) {
    values[body.inputs[i + 1]] = values[node.inputs()[i + 2]];
  }
  // Results go through a buffer: a result may be another iteration's parameter.
  absl::InlinedVector<c10::IValue, 4> carried(num_carried);
  for (int64_t iteration = 0; condition && iteration < max_trip_count; ++iteration) {
    values[body.inputs[0]] = iteration;
    RETURN_IF_ERROR(Run(body, values, observer));
    condition = values[body.outputs[0]].toBool();
    for (size_t i = 0; i < num_carried; ++i) carried[i] = values[body.outputs[i + 1]];
    for (size_t i = 0; i < num_carried; ++i) {
      c10::IValue previous = std::exchange(values[body.inputs[i + 1]], std::move(carried[i]));
      // The previous value, if nothing else holds it, becomes the memory the
      // defining kernel reuses next iteration (ReusableOutput checks).
      if (body.recycle[i + 1]) values[body.outputs[i + 1]] = std::move(previous);
    }
  }
  for (size_t i = 0; i < num_carried; ++i) {
    values[node.outputs()[i]] = values[body.inputs[i + 1]];
  }
  return absl::OkStatus();
}

template <typename Observer>
absl::Status Run(const BlockPlan& block, c10::IValue* values, Observer& observer) {
  for (const NodePlan& node : block.nodes) {
    absl::Status status;
    try {
      switch (node.kind) {
        case NodeKind::kOutVariant:
        case NodeKind::kNative:
        case NodeKind::kFallback: {
          NodeIO io(values, node.inputs(), node.outputs());
          observer.Before(node, io);
          node.kernel(io);
          observer.After(node, io);
          break;
        }
        case NodeKind::kIf:
          status = RunIf(node, values, observer);
          break;
        case NodeKind::kLoop:
          status = RunLoop(node, values, observer);
          break;
      }
    } catch (const std::exception& e) {
      return NodeError(node, values, e);
    }
    RETURN_IF_ERROR(status);
  }
  return absl::OkStatus();
}

}  // namespace

std::exception_ptr TakeNodeException() { return std::exchange(NodeException(), nullptr); }

absl::Status RunBlock(const BlockPlan& block, c10::IValue* values) {
  const RunScope run;
  NoObserver observer;
  return Run(block, values, observer);
}

namespace {

// Tells a NodeObserver about each kernel call.
struct Reporter {
  NodeObserver& observer;
  void Before(const NodePlan& node, const NodeIO& io) { observer.Before(*node.info, io); }
  void After(const NodePlan& node, const NodeIO& io) { observer.After(*node.info, io); }
};

}  // namespace

absl::Status RunBlockObserved(const BlockPlan& block, c10::IValue* values, NodeObserver& observer) {
  const RunScope run;
  Reporter reporter{observer};
  return Run(block, values, reporter);
}

namespace {

// Tells the planner which node runs next (its poisoning mode), then `inner`.
template <typename Inner>
struct Poisoner {
  memory::MemoryPlanner& planner;
  Inner inner;
  void Before(const NodePlan& node, const NodeIO& io) {
    planner.BeforeNode(node.info->number);
    inner.Before(node, io);
  }
  void After(const NodePlan& node, const NodeIO& io) { inner.After(node, io); }
};

}  // namespace

absl::Status RunBlockPoisoning(const BlockPlan& block, c10::IValue* values,
                               memory::MemoryPlanner& planner, NodeObserver* observer) {
  const RunScope run;
  if (observer == nullptr) {
    Poisoner<NoObserver> poisoner{planner, {}};
    return Run(block, values, poisoner);
  }
  Poisoner<Reporter> poisoner{planner, Reporter{*observer}};
  return Run(block, values, poisoner);
}

}  // namespace static_runtime
