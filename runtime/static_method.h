// StaticMethod: a StaticModule behind LibTorch's torch::IMethod interface, so
// it can stand wherever a `const torch::IMethod&` is accepted. Calls are
// thread-safe (served by an internal RuntimePool); a failed call throws
// c10::Error with the runtime's message, as IMethod implementations do.
#ifndef STATIC_RUNTIME_RUNTIME_STATIC_METHOD_H_
#define STATIC_RUNTIME_RUNTIME_STATIC_METHOD_H_

#include <string>
#include <utility>
#include <vector>

#include "runtime/pool.h"
#include "runtime/static_module.h"
#include "torch/imethod.h"

namespace static_runtime {

class StaticMethod : public torch::IMethod {
 public:
  // At most `max_concurrency` calls run at once (others wait).
  explicit StaticMethod(StaticModule::Ptr module, size_t max_concurrency = 8);

  c10::IValue operator()(std::vector<c10::IValue> args,
                         const IValueMap& kwargs = IValueMap()) const override;
  const std::string& name() const override { return name_; }
  // The call as a task on `launcher` (see RuntimePool::RunAsync); this
  // method must outlive the future's completion.
  c10::intrusive_ptr<c10::ivalue::Future> RunAsync(std::vector<c10::IValue> args,
                                                   IValueMap kwargs = IValueMap(),
                                                   TaskLauncher launcher = nullptr) const {
    return pool_.RunAsync(std::move(args), std::move(kwargs), std::move(launcher));
  }

 protected:
  void setArgumentNames(std::vector<std::string>& argument_names) const override;

 private:
  mutable RuntimePool pool_;
  const std::string name_;
};

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_STATIC_METHOD_H_
