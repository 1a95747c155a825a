#include "execution/run_scope.h"

#include <atomic>
#include <cstdint>
#include <exception>
#include <utility>
#include <vector>

#include "ATen/core/class_type.h"
#include "ATen/core/function.h"
#include "ATen/core/jit_type.h"
#include "absl/container/flat_hash_map.h"
#include "glog/logging.h"

namespace static_runtime {
namespace {

// Run ids are a thread's number (from 1) in the high 24 bits and its count
// of runs in the low 40: unique without a shared counter on each run.
constexpr int kRunCountBits = 40;

struct ThreadRun {
  ThreadRun() {
    static std::atomic<uint64_t> threads{0};
    thread_bits = (threads.fetch_add(1, std::memory_order_relaxed) + 1) << kRunCountBits;
  }
  uint64_t thread_bits;
  uint64_t runs = 0;
  uint64_t id = 0;
  std::vector<c10::IValue> entered;
};

ThreadRun& Current() {
  thread_local ThreadRun run;
  return run;
}

}  // namespace

uint64_t CurrentRunId() { return Current().id; }

// A run is on one thread (a forked call is a run of its own), so the sites
// that warned are kept per thread, with the run they last warned in.
bool ShouldWarn(int64_t warn_id) {
  const uint64_t run = CurrentRunId();
  if (run == 0) return true;
  thread_local absl::flat_hash_map<int64_t, uint64_t> warned_in_run;
  return std::exchange(warned_in_run[warn_id], run) != run;
}

void PushEnteredObject(const c10::IValue& object) { Current().entered.push_back(object); }

void PopEnteredObject() {
  std::vector<c10::IValue>& entered = Current().entered;
  if (!entered.empty()) entered.pop_back();
}

c10::IValue CallExit(const c10::IValue& object) {
  torch::jit::Stack stack = {object, c10::IValue(), c10::IValue(), c10::IValue()};
  object.toObjectRef().type()->getMethod("__exit__").run(stack);
  return stack.empty() ? c10::IValue() : std::move(stack.back());
}

RunScope::RunScope() {
  ThreadRun& run = Current();
  enclosing_id_ = run.id;
  enclosing_entered_ = run.entered.size();
  run.id = run.thread_bits | (++run.runs & ((uint64_t{1} << kRunCountBits) - 1));
}

RunScope::~RunScope() {
  ThreadRun& run = Current();
  // Objects left entered: the run failed inside their `with` blocks.
  while (run.entered.size() > enclosing_entered_) {
    const c10::IValue object = std::move(run.entered.back());
    run.entered.pop_back();
    try {
      CallExit(object);
    } catch (const std::exception& e) {
      LOG(WARNING) << "__exit__ of an object a failed run had entered threw: " << e.what();
    }
  }
  run.id = enclosing_id_;
}

}  // namespace static_runtime
