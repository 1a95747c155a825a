// Input specs for `sr`: random model inputs described on the command line.
//
//   f32[8,64];i64[32]{0..999};i64[9];int=3;float=0.5;bool=1
//
// Items are separated by ';'. A tensor item is a dtype (f32, f64, f16, i32,
// i64, u8, bool), a shape in brackets ([] for a 0-dim tensor) and, for
// integer tensors, an optional value range {low..high} (inclusive; default
// 0..9). Floating tensors are drawn from N(0, 1), bools are fair coins. A
// scalar item is int=N, float=X or bool=0|1. Values are deterministic for a
// seed. Errors name the item (1-based) and what is wrong with it.
#ifndef STATIC_RUNTIME_TOOLS_SR_INPUT_SPEC_H_
#define STATIC_RUNTIME_TOOLS_SR_INPUT_SPEC_H_

#include <cstdint>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace static_runtime {
namespace sr {

absl::StatusOr<std::vector<c10::IValue>> ParseInputSpec(absl::string_view spec, uint64_t seed);

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_INPUT_SPEC_H_
