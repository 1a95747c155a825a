// RuntimePool: serves one StaticModule to many threads. Runtimes are created
// on demand, up to a bound, and reused; a caller that finds every runtime busy
// and the bound reached waits for one to be returned. A caller gets back the
// runtime its thread used last when that one is idle: its arena and value
// slots are still in this core's cache, and the objects its runs make are
// made and freed by one thread (measured in docs/benchmarks.md, "Throughput
// with threads"). That runtime waits in a slot of the caller's thread (one
// cache line per slot, threads by hash), taken and returned with one atomic
// exchange each: threads calling back to back never take a lock nor write a
// cache line another thread writes. The mutex is for the rest (a first call,
// a thread whose slot is taken, waiting for a runtime). Run() and RunAsync()
// are thread-safe.
#ifndef STATIC_RUNTIME_RUNTIME_POOL_H_
#define STATIC_RUNTIME_RUNTIME_POOL_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/static_module.h"
#include "runtime/static_runtime.h"

namespace static_runtime {

class RuntimePool {
 public:
  // `max_runtimes` is at least 1.
  RuntimePool(StaticModule::Ptr module, size_t max_runtimes);
  ~RuntimePool();
  RuntimePool(const RuntimePool&) = delete;
  RuntimePool& operator=(const RuntimePool&) = delete;

  // With `node_exception`, a failing node's exception, as thrown, goes there
  // (see StaticRuntime::last_node_exception).
  absl::StatusOr<c10::IValue> Run(const std::vector<c10::IValue>& args,
                                  const KwargMap& kwargs = KwargMap(),
                                  std::exception_ptr* node_exception = nullptr);
  // As StaticRuntime::operator(): the result, or the error thrown (a node's
  // exception as the node threw it).
  c10::IValue operator()(const std::vector<c10::IValue>& args, const KwargMap& kwargs = KwargMap());
  // Run as a task on `launcher` (see StaticRuntime::RunAsync); the pool must
  // outlive the future's completion.
  c10::intrusive_ptr<c10::ivalue::Future> RunAsync(std::vector<c10::IValue> args,
                                                   KwargMap kwargs = KwargMap(),
                                                   TaskLauncher launcher = nullptr);

  const StaticModule& module() const { return *module_; }
  size_t max_runtimes() const { return max_runtimes_; }
  size_t runtimes_created() const;
  // The memory each runtime that is not running a call now holds (its
  // arena, output buffers; StaticRuntime::memory_stats): what serving keeps
  // between calls. Runtimes running a call are left out.
  std::vector<MemoryStats> IdleRuntimesMemoryStats();

 private:
  // The runtimes not running a call: in the slot of the thread that ran one
  // last, or in a list under a lock, with the count made (pool.cc).
  class Runtimes;

  const StaticModule::Ptr module_;
  const size_t max_runtimes_;
  const std::unique_ptr<Runtimes> runtimes_;
};

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_POOL_H_
