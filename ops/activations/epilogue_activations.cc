#include "ops/activations/epilogue_activations.h"

#include <cstdint>
#include <cstring>
#include <limits>

#include "ops/activations/epilogue_activations_impl.h"
#include "ops/core/cpu_isa.h"

namespace static_runtime {
namespace ops {

// Defined in epilogue_activations_avx2.cc and epilogue_activations_avx512.cc.
EpilogueActivationLoops EpilogueActivationsAvx2();
EpilogueActivationLoops EpilogueActivationsAvx512();

namespace {

using namespace epilogue;  // NOLINT(google-build-using-namespace): the constants

// The scalar forms (CPUs without AVX2), the vector loops' arithmetic one
// element at a time with exact divisions.
float ExpInRange(float z) {
  const float shifted = z * kLog2e + kRound;
  const float n = shifted - kRound;
  // (Unsigned: a NaN's bits make any exponent; the caller discards it.)
  uint32_t shifted_bits, round_bits;
  std::memcpy(&shifted_bits, &shifted, sizeof shifted);
  std::memcpy(&round_bits, &kRound, sizeof kRound);
  const uint32_t scale_bits = (shifted_bits - round_bits + 127) << 23;
  float scale;
  std::memcpy(&scale, &scale_bits, sizeof scale);
  const float r = (z - n * kLn2High) - n * kLn2Low;
  float p = kExpPoly[0];
  for (int i = 1; i < 6; ++i) p = p * r + kExpPoly[i];
  return (p * r * r + r + 1.0f) * scale;
}

float Silu(float x) {
  const float z = -x;
  if (z > kExpMax) return x / std::numeric_limits<float>::infinity();  // -0, or NaN for -inf
  return x / (1.0f + ExpInRange(z < kExpMin ? kExpMin : z));
}

float Gelu(float x) {
  const float z = (x < 0.0f ? -x : x) * kSqrtHalf;
  const float t = 1.0f / (1.0f + kErfcP * z);
  float poly = kErfcPoly[0];
  for (int i = 1; i < 5; ++i) poly = poly * t + kErfcPoly[i];
  const float z2 = z * z;
  const float erfc = poly * t * ExpInRange(-(z2 > -kExpMin ? -kExpMin : z2));
  return 0.5f * x * (x < 0.0f ? erfc : 2.0f - erfc);
}

template <float (*kScalar)(float)>
void ScalarLoop(float* data, int64_t count) {
  for (int64_t i = 0; i < count; ++i) data[i] = kScalar(data[i]);
}

const EpilogueActivationLoops& LoopsForThisCpu() {
  static const EpilogueActivationLoops kLoops = EpilogueActivationCandidates().front();
  return kLoops;
}

}  // namespace

std::vector<EpilogueActivationLoops> EpilogueActivationCandidates() {
  std::vector<EpilogueActivationLoops> candidates;
  if (CpuRunsAvx512()) candidates.push_back(EpilogueActivationsAvx512());
  if (CpuRunsAvx2()) candidates.push_back(EpilogueActivationsAvx2());
  candidates.push_back({ScalarLoop<Silu>, ScalarLoop<Gelu>, "scalar"});
  return candidates;
}

void SiluInPlace(float* data, int64_t count) { LoopsForThisCpu().silu(data, count); }

void GeluInPlace(float* data, int64_t count) { LoopsForThisCpu().gelu(data, count); }

}  // namespace ops
}  // namespace static_runtime
