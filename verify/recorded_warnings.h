// RecordedWarnings: while it lives, LibTorch's warnings on this thread go to
// its list of messages (and of where each was sent from) instead of the
// installed handler (which it restores).
// For tests that compare what the runtime warns with what the JIT warns.
#ifndef STATIC_RUNTIME_VERIFY_RECORDED_WARNINGS_H_
#define STATIC_RUNTIME_VERIFY_RECORDED_WARNINGS_H_

#include <string>
#include <vector>

#include "c10/util/Exception.h"

namespace static_runtime {
namespace golden {

class RecordedWarnings : public c10::WarningHandler {
 public:
  RecordedWarnings() : previous_(c10::Warning::get_warning_handler()) {
    c10::Warning::set_warning_handler(this);
  }
  ~RecordedWarnings() override { c10::Warning::set_warning_handler(previous_); }
  RecordedWarnings(const RecordedWarnings&) = delete;
  RecordedWarnings& operator=(const RecordedWarnings&) = delete;

  void process(const c10::SourceLocation& location, const std::string& message,
               bool verbatim) override {
    messages.push_back(message);
    origins.push_back(std::string(location.file) + ":" + std::to_string(location.line) +
                      (verbatim ? " verbatim" : ""));
  }

  std::vector<std::string> messages;
  // "FILE:LINE", and " verbatim" when the handler was told to print the
  // message as it is.
  std::vector<std::string> origins;

 private:
  c10::WarningHandler* previous_;
};

}  // namespace golden
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_VERIFY_RECORDED_WARNINGS_H_
