// ModelConfig: how the server runs one model of its repository, read from
// the optional NAME/config.json beside the model (docs/serving.md lists the
// keys). Unknown keys and values of the wrong type are errors that name the
// key, so a typo never silently falls back to a default.
#ifndef STATIC_RUNTIME_SERVER_MODEL_CONFIG_H_
#define STATIC_RUNTIME_SERVER_MODEL_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "options/options.h"

namespace static_runtime {
namespace server {

// An input the config declares: requests must match its datatype and shape
// (-1: any size).
struct DeclaredTensor {
  std::string name;
  std::string datatype;
  std::vector<int64_t> shape;
};

struct ModelConfig {
  // Rows (sizes of dimension 0, summed over requests) run as one batch; 0
  // runs each request alone. Only for models whose every input and output
  // tensor has the batch as dimension 0.
  int64_t max_batch_size = 0;
  // How long the first request of a batch waits for others.
  int64_t max_queue_delay_us = 0;
  // Runtimes, each with a thread taking requests from the model's queue.
  int instances = 1;
  // Requests waiting beyond the ones running; one more is refused at once.
  int queue_size = 64;
  Options options;
  std::vector<DeclaredTensor> inputs;
  // Requests run before the model is ready, so that the first requests of
  // these shapes do not pay for preparing them (kernel plans, weight
  // layouts): each sample names every input with its datatype and shape
  // (zeros are sent). With max_batch_size > 0, each sample runs at every
  // batch size from 1 to max_batch_size (its shapes' dimension 0 replaced).
  std::vector<std::vector<DeclaredTensor>> warmup;
};

// The config in `json` (the text of a config.json).
absl::StatusOr<ModelConfig> ParseModelConfig(absl::string_view json);

}  // namespace server
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_SERVER_MODEL_CONFIG_H_
