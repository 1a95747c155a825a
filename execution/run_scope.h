// What one run keeps on the thread that runs it, as the JIT interpreter's
// InterpreterState keeps it for one InterpreterState::run: the run's id, and
// the objects its `with` statements entered and have not exited, and the
// warn sites that warned in it.
// Contract: the runtime opens a RunScope around each run it starts on a
// thread (a top-level run, or a forked call: a run of its own); scopes nest.
// Run ids are unique in the process and never 0; outside any scope
// CurrentRunId() is 0 (each kernel call then counts as a run of its own).
// A scope that closes with objects still entered (a node threw inside a
// `with` block) calls their __exit__(None, None, None), innermost first, and
// ignores what those calls throw, as the interpreter does on an error.
#ifndef STATIC_RUNTIME_EXECUTION_RUN_SCOPE_H_
#define STATIC_RUNTIME_EXECUTION_RUN_SCOPE_H_

#include <cstddef>
#include <cstdint>

#include "ATen/core/ivalue.h"

namespace static_runtime {

uint64_t CurrentRunId();

// Whether the aten::warn call site numbered `warn_id` (as the JIT's
// AnnotateWarns numbers them; copies of a node, as loop unrolling makes,
// keep the number) is to warn now: the interpreter warns at each numbered
// site once per run (per InterpreterState::run, so once per call even inside
// a loop). Outside any run, every time.
bool ShouldWarn(int64_t warn_id);

// prim::Enter's and prim::Exit's bookkeeping: the object a `with` statement
// enters, and the one it exits (the innermost entered).
void PushEnteredObject(const c10::IValue& object);
void PopEnteredObject();

// Calls `object`'s __exit__ with no exception (three Nones), as a `with`
// block that ends, and returns what it returns.
c10::IValue CallExit(const c10::IValue& object);

class RunScope {
 public:
  RunScope();
  ~RunScope();
  RunScope(const RunScope&) = delete;
  RunScope& operator=(const RunScope&) = delete;

 private:
  uint64_t enclosing_id_;
  size_t enclosing_entered_;  // how many objects the enclosing run entered
};

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_EXECUTION_RUN_SCOPE_H_
