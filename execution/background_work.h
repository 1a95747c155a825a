// Work that makes later calls faster but that no call waits for (a kernel
// packing a weight into the layout its next calls will use, a linear making
// the plan of a row count it met, a runtime giving freed heap back), run on one
// background thread of the process, in the order posted, with the
// process's intra-op thread count (as ATen sets a thread's). The OpenMP
// workers a task's parallel regions start end when the thread falls idle
// (with libgomp), so that they do not count against the CPUs for the
// callers' own teams.
//
// Contract: a task keeps alive what it uses (captures shared_ptrs), must
// not throw, and publishes its result so that calls running meanwhile see
// either the old state or the new (atomics). WaitForBackgroundWork()
// returns when every task posted before it has run: warm-up calls it, so
// that a model is ready with what its warm-up calls started, and so do
// tests. At process exit, tasks not started are dropped and a running one
// is finished first, so that none runs while static objects are destroyed.
#ifndef STATIC_RUNTIME_EXECUTION_BACKGROUND_WORK_H_
#define STATIC_RUNTIME_EXECUTION_BACKGROUND_WORK_H_

#include <functional>

namespace static_runtime {

void PostBackgroundWork(std::function<void()> task);
void WaitForBackgroundWork();

// Starts the background thread now, if it is not running: a module's load
// does, so that no call pays for the thread's start (its stack, its OpenMP
// and malloc state: 0.5 ms of the first call that posted work, on a 2-core
// VM).
void StartBackgroundThread();

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_EXECUTION_BACKGROUND_WORK_H_
