#include "runtime/static_method.h"

#include <utility>

#include "c10/util/Exception.h"

namespace static_runtime {

StaticMethod::StaticMethod(StaticModule::Ptr module, size_t max_concurrency)
    : pool_(module, max_concurrency), name_(module->schema().name()) {}

c10::IValue StaticMethod::operator()(std::vector<c10::IValue> args, const IValueMap& kwargs) const {
  absl::StatusOr<c10::IValue> result = pool_.Run(args, kwargs);
  TORCH_CHECK(result.ok(), result.status().message());
  return *std::move(result);
}

void StaticMethod::setArgumentNames(std::vector<std::string>& argument_names) const {
  argument_names.clear();
  for (const c10::Argument& argument : pool_.module().schema().arguments()) {
    argument_names.push_back(argument.name());
  }
}

}  // namespace static_runtime
