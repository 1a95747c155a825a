#include "runtime/static_runtime.h"

#include <utility>

#include "runtime/runtime_impl.h"

namespace static_runtime {

StaticRuntime::StaticRuntime(StaticModule::Ptr module)
    : impl_(std::make_unique<RuntimeImpl>(std::move(module))) {}

StaticRuntime::~StaticRuntime() = default;

absl::StatusOr<c10::IValue> StaticRuntime::Run(const std::vector<c10::IValue>& args,
                                               const KwargMap& kwargs) {
  return impl_->Run(args, kwargs);
}

void StaticRuntime::ReleaseOutputs() { impl_->ReleaseOutputs(); }

c10::intrusive_ptr<c10::ivalue::Future> StaticRuntime::RunAsync(std::vector<c10::IValue> args,
                                                                KwargMap kwargs,
                                                                TaskLauncher launcher) {
  return impl_->RunAsync(std::move(args), std::move(kwargs), std::move(launcher));
}

absl::StatusOr<c10::IValue> StaticRuntime::RunObserved(const std::vector<c10::IValue>& args,
                                                       const KwargMap& kwargs,
                                                       NodeObserver& observer) {
  return impl_->RunObserved(args, kwargs, observer);
}

const StaticModule& StaticRuntime::module() const { return *impl_->module(); }

size_t StaticRuntime::NumHeldValues() const { return impl_->NumHeldValues(); }

MemoryStats StaticRuntime::memory_stats() const { return impl_->memory_stats(); }

MemoryPlanDescription StaticRuntime::DescribeMemoryPlan() const {
  return impl_->DescribeMemoryPlan();
}

}  // namespace static_runtime
