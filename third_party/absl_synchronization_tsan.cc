// ThreadSanitizer's view of Debian's Abseil synchronization (linked into
// test binaries by --config=tsan only).
//
// Debian's libabsl_synchronization is not built with -fsanitize=thread, so
// TSan sees neither its locks nor its atomics: every access guarded by an
// absl::Mutex looked like a race. This file defines the public entry points
// (Mutex, CondVar, Notification, BlockingCounter) in the test binary, which
// the dynamic loader binds ahead of the shared library's; each calls the
// library's own function (dlsym RTLD_NEXT) and adds the happens-before edge
// the call stands for: a release on the object before a call that unlocks
// or signals, an acquire on it after a call that locks or waits.
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/base/options.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace {

#define STATIC_RUNTIME_STRINGIFY2(x) #x
#define STATIC_RUNTIME_STRINGIFY(x) STATIC_RUNTIME_STRINGIFY2(x)

// The library's definition of `symbol`, mangled as "_ZN4absl<ns>" + `rest`
// or, for const members, "_ZNK4absl<ns>" + `rest`.
template <typename Function>
Function Next(const char* prefix, const char* rest) {
  const std::string ns = STATIC_RUNTIME_STRINGIFY(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  const std::string symbol = std::string(prefix) + "4absl" + std::to_string(ns.size()) + ns + rest;
  void* found = dlsym(RTLD_NEXT, symbol.c_str());
  if (found == nullptr) {
    std::fprintf(stderr, "absl_synchronization_tsan: no %s in Abseil\n", symbol.c_str());
    std::abort();
  }
  return reinterpret_cast<Function>(found);
}

#define STATIC_RUNTIME_NEXT(type, prefix, rest) static const auto next = Next<type>(prefix, rest)

void Acquire(const void* object) { __tsan_acquire(const_cast<void*>(object)); }
void Release(const void* object) { __tsan_release(const_cast<void*>(object)); }

// A condition evaluated by Abseil (with the mutex held, by the waiting thread
// or by the one unlocking): the evaluation acquires the mutex's edges first.
class HeldCondition {
 public:
  HeldCondition(const absl::Condition& condition, const absl::Mutex* mutex)
      : condition_(condition), mutex_(mutex) {}
  absl::Condition Get() { return absl::Condition(&HeldCondition::Eval, this); }

 private:
  static bool Eval(HeldCondition* held) {
    Acquire(held->mutex_);
    const bool met = held->condition_.Eval();
    Release(held->mutex_);
    return met;
  }
  const absl::Condition& condition_;
  const absl::Mutex* mutex_;
};

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  STATIC_RUNTIME_NEXT(void (*)(Mutex*), "_ZN", "5Mutex4LockEv");
  next(this);
  Acquire(this);
}

void Mutex::ReaderLock() {
  STATIC_RUNTIME_NEXT(void (*)(Mutex*), "_ZN", "5Mutex10ReaderLockEv");
  next(this);
  Acquire(this);
}

bool Mutex::TryLock() {
  STATIC_RUNTIME_NEXT(bool (*)(Mutex*), "_ZN", "5Mutex7TryLockEv");
  const bool locked = next(this);
  if (locked) Acquire(this);
  return locked;
}

bool Mutex::ReaderTryLock() {
  STATIC_RUNTIME_NEXT(bool (*)(Mutex*), "_ZN", "5Mutex13ReaderTryLockEv");
  const bool locked = next(this);
  if (locked) Acquire(this);
  return locked;
}

void Mutex::Unlock() {
  STATIC_RUNTIME_NEXT(void (*)(Mutex*), "_ZN", "5Mutex6UnlockEv");
  Release(this);
  next(this);
}

void Mutex::ReaderUnlock() {
  STATIC_RUNTIME_NEXT(void (*)(Mutex*), "_ZN", "5Mutex12ReaderUnlockEv");
  Release(this);
  next(this);
}

void Mutex::LockWhen(const Condition& cond) {
  STATIC_RUNTIME_NEXT(void (*)(Mutex*, const Condition&), "_ZN",
                      "5Mutex8LockWhenERKNS0_9ConditionE");
  next(this, HeldCondition(cond, this).Get());
  Acquire(this);
}

void Mutex::ReaderLockWhen(const Condition& cond) {
  STATIC_RUNTIME_NEXT(void (*)(Mutex*, const Condition&), "_ZN",
                      "5Mutex14ReaderLockWhenERKNS0_9ConditionE");
  next(this, HeldCondition(cond, this).Get());
  Acquire(this);
}

bool Mutex::LockWhenWithTimeout(const Condition& cond, absl::Duration timeout) {
  STATIC_RUNTIME_NEXT(bool (*)(Mutex*, const Condition&, absl::Duration), "_ZN",
                      "5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  const bool met = next(this, HeldCondition(cond, this).Get(), timeout);
  Acquire(this);  // held whether or not the condition holds
  return met;
}

bool Mutex::LockWhenWithDeadline(const Condition& cond, absl::Time deadline) {
  STATIC_RUNTIME_NEXT(bool (*)(Mutex*, const Condition&, absl::Time), "_ZN",
                      "5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  const bool met = next(this, HeldCondition(cond, this).Get(), deadline);
  Acquire(this);
  return met;
}

bool Mutex::ReaderLockWhenWithTimeout(const Condition& cond, absl::Duration timeout) {
  STATIC_RUNTIME_NEXT(bool (*)(Mutex*, const Condition&, absl::Duration), "_ZN",
                      "5Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  const bool met = next(this, HeldCondition(cond, this).Get(), timeout);
  Acquire(this);
  return met;
}

bool Mutex::ReaderLockWhenWithDeadline(const Condition& cond, absl::Time deadline) {
  STATIC_RUNTIME_NEXT(bool (*)(Mutex*, const Condition&, absl::Time), "_ZN",
                      "5Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  const bool met = next(this, HeldCondition(cond, this).Get(), deadline);
  Acquire(this);
  return met;
}

// Await releases the mutex while it waits and holds it again on return.
void Mutex::Await(const Condition& cond) {
  STATIC_RUNTIME_NEXT(void (*)(Mutex*, const Condition&), "_ZN", "5Mutex5AwaitERKNS0_9ConditionE");
  Release(this);
  next(this, HeldCondition(cond, this).Get());
  Acquire(this);
}

bool Mutex::AwaitWithTimeout(const Condition& cond, absl::Duration timeout) {
  STATIC_RUNTIME_NEXT(bool (*)(Mutex*, const Condition&, absl::Duration), "_ZN",
                      "5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  Release(this);
  const bool met = next(this, HeldCondition(cond, this).Get(), timeout);
  Acquire(this);
  return met;
}

bool Mutex::AwaitWithDeadline(const Condition& cond, absl::Time deadline) {
  STATIC_RUNTIME_NEXT(bool (*)(Mutex*, const Condition&, absl::Time), "_ZN",
                      "5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  Release(this);
  const bool met = next(this, HeldCondition(cond, this).Get(), deadline);
  Acquire(this);
  return met;
}

void CondVar::Wait(Mutex* mu) {
  STATIC_RUNTIME_NEXT(void (*)(CondVar*, Mutex*), "_ZN", "7CondVar4WaitEPNS0_5MutexE");
  Release(mu);
  next(this, mu);
  Acquire(mu);
}

bool CondVar::WaitWithTimeout(Mutex* mu, absl::Duration timeout) {
  STATIC_RUNTIME_NEXT(bool (*)(CondVar*, Mutex*, absl::Duration), "_ZN",
                      "7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  Release(mu);
  const bool timed_out = next(this, mu, timeout);
  Acquire(mu);
  return timed_out;
}

bool CondVar::WaitWithDeadline(Mutex* mu, absl::Time deadline) {
  STATIC_RUNTIME_NEXT(bool (*)(CondVar*, Mutex*, absl::Time), "_ZN",
                      "7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  Release(mu);
  const bool timed_out = next(this, mu, deadline);
  Acquire(mu);
  return timed_out;
}

void Notification::Notify() {
  STATIC_RUNTIME_NEXT(void (*)(Notification*), "_ZN", "12Notification6NotifyEv");
  Release(this);
  next(this);
}

void Notification::WaitForNotification() const {
  STATIC_RUNTIME_NEXT(void (*)(const Notification*), "_ZNK",
                      "12Notification19WaitForNotificationEv");
  next(this);
  Acquire(this);
}

bool Notification::WaitForNotificationWithTimeout(absl::Duration timeout) const {
  STATIC_RUNTIME_NEXT(bool (*)(const Notification*, absl::Duration), "_ZNK",
                      "12Notification30WaitForNotificationWithTimeoutENS0_8DurationE");
  const bool notified = next(this, timeout);
  if (notified) Acquire(this);
  return notified;
}

bool Notification::WaitForNotificationWithDeadline(absl::Time deadline) const {
  STATIC_RUNTIME_NEXT(bool (*)(const Notification*, absl::Time), "_ZNK",
                      "12Notification31WaitForNotificationWithDeadlineENS0_4TimeE");
  const bool notified = next(this, deadline);
  if (notified) Acquire(this);
  return notified;
}

bool BlockingCounter::DecrementCount() {
  STATIC_RUNTIME_NEXT(bool (*)(BlockingCounter*), "_ZN", "15BlockingCounter14DecrementCountEv");
  Release(this);
  return next(this);
}

void BlockingCounter::Wait() {
  STATIC_RUNTIME_NEXT(void (*)(BlockingCounter*), "_ZN", "15BlockingCounter4WaitEv");
  next(this);
  Acquire(this);
}

ABSL_NAMESPACE_END
}  // namespace absl
