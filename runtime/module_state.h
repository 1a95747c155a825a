// ModuleState: what a StaticModule holds, in the form the runtime's own code
// reads (the prepared graph, the value layout, the execution plan, the
// memory plan's lifetimes and first sizes). Internal: not part of the API,
// changes with the runtime; tools and users see runtime/static_module.h.
#ifndef STATIC_RUNTIME_RUNTIME_MODULE_STATE_H_
#define STATIC_RUNTIME_RUNTIME_MODULE_STATE_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "memory/plan.h"
#include "memory/planner.h"
#include "options/options.h"
#include "passes/prepare.h"
#include "runtime/plan.h"
#include "runtime/types.h"
#include "runtime/value_layout.h"

namespace static_runtime {

class StaticModule;

struct ModuleState {
  // The rest starts empty: BindKernels and ModuleFromPrepared fill it in.
  ModuleState(PreparedGraph prepared, Options options, ValueLayout layout, BlockPlan plan)
      : prepared(std::move(prepared)),
        options(std::move(options)),
        layout(std::move(layout)),
        plan(std::move(plan)) {}

  PreparedGraph prepared;
  Options options;
  ValueLayout layout;
  BlockPlan plan;
  KernelCounts kernel_counts;
  // Memory planning (empty unless options.optimize_memory): the slots of the
  // tensors a run manages, their lifetimes, and their sizes and dtypes if
  // known before the first run (from a run on the sample inputs).
  std::vector<ValueIndex> managed_slots;
  std::vector<memory::Lifetime> managed_lifetimes;
  std::vector<memory::TensorRecord> initial_records;
  // The slots of the lists and dicts nodes build, emptied in place at the
  // end of a run when nothing else holds them (ops/prim/recycled_containers.h).
  std::vector<ValueIndex> recycled_slots;
  // The slots of views and lists that hold managed tensors (LifetimeAnalysis::
  // holders), emptied before the planner recycles them: the others, then
  // the recycled containers among them.
  std::vector<ValueIndex> holder_slots;
  std::vector<ValueIndex> recycled_holder_slots;
  // With options.manage_output_tensors: the graph outputs that live in the
  // runtime's output buffer until the caller releases them.
  std::vector<ValueIndex> output_slots;
  std::vector<memory::Lifetime> output_lifetimes;
  // With options.group_output_allocations: the tensors a run hands out that
  // share one allocation (LifetimeAnalysis::escaping, less output_slots).
  std::vector<ValueIndex> slab_slots;
  std::vector<memory::TensorRecord> initial_slab_records;  // as initial_records
  // StaticModule::planned_inputs().
  std::vector<std::string> planned_inputs;

  static const ModuleState& Of(const StaticModule& module);
  // A new module holding `state` (its memory plan's lifetimes are computed).
  static std::shared_ptr<StaticModule> NewModule(std::unique_ptr<ModuleState> state);
  static ModuleState& MutableOf(StaticModule& module);
};

// Binds the prepared graph's nodes to kernels; no memory plan records yet.
absl::StatusOr<std::shared_ptr<StaticModule>> BindKernels(PreparedGraph prepared,
                                                          const Options& options);

// A module from a graph already prepared by one of passes/prepare.h's
// functions; with sample inputs, one run on each set sizes the memory plan
// (and prepares the kernels for their shapes).
absl::StatusOr<std::shared_ptr<const StaticModule>> ModuleFromPrepared(
    PreparedGraph prepared, const Options& options, const SampleInputs& sample_inputs = {});

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_MODULE_STATE_H_
