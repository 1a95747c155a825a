// Work that makes later calls faster but that no call waits for (a kernel
// packing a weight into the layout its next calls will use), run on one
// background thread of the process, in the order posted, with the
// process's intra-op thread count (as ATen sets a thread's).
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

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_EXECUTION_BACKGROUND_WORK_H_
