// The PanelRow loops of every ISA this CPU runs (the baseline always) give,
// bit for bit, few_channel_panel.h's sum written out one scalar operation at
// a time: random taps, counts (whole blocks of four vectors and tails),
// biases and values of mixed magnitudes and signs.
#include "ops/conv/few_channel_panel.h"

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ops/core/cpu_isa.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace {

using ops::kFewChannelTile;
using ops::PanelRowFunction;

std::vector<std::pair<std::string, PanelRowFunction>> AvailableLoops() {
  std::vector<std::pair<std::string, PanelRowFunction>> loops = {
      {"baseline", ops::PanelRowBaseline}};
  if (ops::CpuRunsAvx2()) loops.emplace_back("avx2", ops::PanelRowAvx2);
  if (ops::CpuRunsAvx512()) loops.emplace_back("avx512", ops::PanelRowAvx512);
  return loops;
}

float Value() {
  const float mantissa = static_cast<float>(*rc::gen::inRange(-(1 << 23), 1 << 23)) / (1 << 23);
  return std::ldexp(mantissa, *rc::gen::inRange(-6, 7));
}

RC_GTEST_PROP(FewChannelPanel, EveryIsaGivesTheDescribedSum, ()) {
  const int64_t taps = *rc::gen::inRange<int64_t>(1, 65);
  const int64_t count = *rc::gen::inRange<int64_t>(1, kFewChannelTile + 1);
  std::vector<float> panel(taps * kFewChannelTile), w(taps);
  for (float& value : panel) value = Value();
  for (float& value : w) value = Value();
  const float bias = Value();
  std::vector<float> expected(count);
  for (int64_t i = 0; i < count; ++i) {
    float sum = bias;
    for (int64_t j = 0; j < taps; ++j) {
      const float product = w[j] * panel[j * kFewChannelTile + i];
      sum = sum + product;
    }
    expected[i] = sum;
  }
  for (const auto& [isa, panel_row] : AvailableLoops()) {
    std::vector<float> y(count, NAN);
    panel_row(panel.data(), w.data(), taps, bias, count, y.data());
    RC_ASSERT(std::memcmp(y.data(), expected.data(), count * sizeof(float)) == 0);
  }
}

}  // namespace
}  // namespace static_runtime
