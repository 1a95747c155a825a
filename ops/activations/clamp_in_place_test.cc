// ops::ReluInPlace, ClampInPlace, HardsigmoidInPlace and HardswishInPlace
// against ATen's relu_, hardtanh_, hardsigmoid_ and hardswish_,
// bit for bit, on buffers of every tail length holding NaN, both zeros,
// infinities and values on and around the bounds.
#include "ops/activations/clamp_in_place.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace ops {
namespace {

// `count` values, a third of them drawn from the special ones.
std::vector<float> Values(int64_t count, float lo, float hi) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> special = {nan,
                                      -nan,
                                      0.f,
                                      -0.f,
                                      inf,
                                      -inf,
                                      lo,
                                      -lo,
                                      hi,
                                      -hi,
                                      std::nextafter(lo, -inf),
                                      std::nextafter(hi, inf),
                                      1e-40f,
                                      -1e-40f};
  std::vector<float> values(count);
  for (float& v : values) {
    v = *rc::gen::inRange(0, 3) == 0 ? *rc::gen::elementOf(special)
                                     : static_cast<float>(*rc::gen::inRange(-1000, 1000)) / 97.f;
  }
  return values;
}

bool SameBits(const std::vector<float>& ours, const at::Tensor& aten) {
  return std::memcmp(ours.data(), aten.data_ptr<float>(), ours.size() * sizeof(float)) == 0;
}

// The same bits, or NaN in both (ATen's vector loops give hardsigmoid and
// hardswish of NaN as the all-ones NaN, its scalar loop as x's own: which
// one depends on
// where the value falls in ATen's loop, so a NaN's payload is not compared).
bool SameBitsOrBothNan(const std::vector<float>& ours, const at::Tensor& aten) {
  const float* theirs = aten.data_ptr<float>();
  for (size_t i = 0; i < ours.size(); ++i) {
    if (std::isnan(ours[i]) && std::isnan(theirs[i])) continue;
    if (std::memcmp(&ours[i], &theirs[i], sizeof(float)) != 0) return false;
  }
  return true;
}

RC_GTEST_PROP(ClampInPlace, ReluEqualsAtenBitForBit, ()) {
  const int64_t count = *rc::gen::inRange<int64_t>(1, 100);
  std::vector<float> values = Values(count, 0.f, 0.f);
  at::Tensor aten = at::from_blob(values.data(), {count}, at::kFloat).clone();
  aten.relu_();
  ReluInPlace(values.data(), count);
  RC_ASSERT(SameBits(values, aten));
}

RC_GTEST_PROP(ClampInPlace, HardtanhEqualsAtenBitForBit, ()) {
  const int64_t count = *rc::gen::inRange<int64_t>(1, 100);
  float lo = 0.f, hi = 6.f;  // relu6
  if (*rc::gen::arbitrary<bool>()) {
    lo = static_cast<float>(*rc::gen::inRange(-50, 50)) / 8.f;
    hi = lo + static_cast<float>(*rc::gen::inRange(0, 50)) / 8.f;
  }
  std::vector<float> values = Values(count, lo, hi);
  at::Tensor aten = at::from_blob(values.data(), {count}, at::kFloat).clone();
  at::hardtanh_(aten, lo, hi);
  ClampInPlace(values.data(), count, lo, hi);
  RC_ASSERT(SameBits(values, aten));
}

RC_GTEST_PROP(ClampInPlace, HardsigmoidAndHardswishEqualAtenBitForBit, ()) {
  const int64_t count = *rc::gen::inRange<int64_t>(1, 100);
  std::vector<float> values = Values(count, -3.f, 3.f);
  at::Tensor aten = at::from_blob(values.data(), {count}, at::kFloat).clone();
  std::vector<float> gated = values;
  at::Tensor aten_gated = aten.clone();
  at::hardswish_(aten);
  HardswishInPlace(values.data(), count);
  RC_ASSERT(SameBitsOrBothNan(values, aten));
  at::hardsigmoid_(aten_gated);
  HardsigmoidInPlace(gated.data(), count);
  RC_ASSERT(SameBitsOrBothNan(gated, aten_gated));
}

}  // namespace
}  // namespace ops
}  // namespace static_runtime
