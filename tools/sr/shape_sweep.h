// A shape sweep: how a runtime meets input shapes it has not seen. For each
// shape in turn, its first call (the time and the resident memory it and
// the background work it started add), how long that background work
// took after it, and its steady call (the median of later calls at that
// shape); then calls
// at shapes drawn at random from the set, and the resident memory after
// them. One side (ours or PyTorch's Static Runtime) per process, so that
// resident memory is that side's (`sr sweep`, tools/bench_models/shape_sweep.sh).
#ifndef STATIC_RUNTIME_TOOLS_SR_SHAPE_SWEEP_H_
#define STATIC_RUNTIME_TOOLS_SR_SHAPE_SWEEP_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ATen/core/ivalue.h"

namespace static_runtime {
namespace sr {

struct ShapeSweepConfig {
  int steady_calls = 10;   // per shape, after its first call
  int random_calls = 200;  // then, at shapes drawn at random
  uint64_t seed = 0;       // of the draws
};

struct SweptShape {
  std::string name;  // the input spec
  double first_ms = 0;
  double settle_ms = 0;        // the background work the first call left, after it
  double steady_ms = 0;        // median
  double first_added_mib = 0;  // resident memory the first call added
};

struct ShapeSweepReport {
  std::string side;
  double prepared_mib = 0;  // resident after preparation, before any call
  std::vector<SweptShape> shapes;
  double after_shapes_mib = 0;  // after every shape's calls
  int random_calls = 0;
  double after_random_mib = 0;
};

// One call of the model on `inputs` (the side's own; it may throw).
using ModelCall = std::function<void(const std::vector<c10::IValue>& inputs)>;

// Waits for the background work calls left (ours: weight layouts); empty
// for a side that leaves none.
using SettleCall = std::function<void()>;

// Sweeps `inputs[i]` (named `names[i]`) in order, then at random.
ShapeSweepReport SweepShapes(const std::string& side, const ModelCall& call,
                             const SettleCall& settle,
                             const std::vector<std::vector<c10::IValue>>& inputs,
                             const std::vector<std::string>& names, const ShapeSweepConfig& config);

// The process's resident set, MiB (/proc/self/statm).
double ResidentMiB();

// A table, and one JSON object (for tools/bench_models/shape_sweep_table.py).
std::string FormatShapeSweep(const ShapeSweepReport& report);
std::string ShapeSweepJson(const ShapeSweepReport& report);

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_SHAPE_SWEEP_H_
