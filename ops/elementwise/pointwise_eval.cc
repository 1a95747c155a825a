#include "ops/elementwise/pointwise_eval.h"

#include <algorithm>
#include <limits>
#include <thread>
#include <vector>

#include "ATen/ATen.h"
#include "ops/core/cpu_isa.h"
#include "ops/elementwise/pointwise_eval_impl.h"

namespace static_runtime {
namespace ops {
namespace {

// Rows of n values (about 4000 in all) laid out with a gap after each row,
// so that ATen's loops run row by row: special values first, then values
// spread over [-8, 8] in an order that puts varied values at every position
// (the tail of each row decides between the tail rules and the ISAs).
at::Tensor ProbeRows(int64_t n, int64_t shift, int64_t max_rows = 4000) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> special = {std::numeric_limits<float>::quiet_NaN(),
                                      inf,
                                      -inf,
                                      0.f,
                                      -0.f,
                                      1e-40f,
                                      -1e-40f,
                                      1.f,
                                      -1.f,
                                      0.5f,
                                      100.f,
                                      -100.f};
  const int64_t rows = std::min(max_rows, (4000 + n - 1) / n);
  at::Tensor values =
      8 * at::sin(at::arange(rows * n, at::kFloat) * 0.7548776662f + static_cast<float>(shift));
  for (size_t i = 0; i < special.size() && static_cast<int64_t>(i) < rows * n; ++i) {
    values[i] = special[(i + shift) % special.size()];
  }
  at::Tensor with_gap = at::empty({rows, n + 1}, at::kFloat).narrow(1, 0, n);
  with_gap.copy_(values.view({rows, n}));
  return with_gap;
}

// ATen's op on the probe values (b is a tensor or, as a wrapped number, a
// scalar), as the graph's node would compute it.
at::Tensor Aten(PointwiseOp op, const at::Tensor& a, const c10::IValue& b, float lo, float hi) {
  switch (op) {
    case PointwiseOp::kAdd:
      return b.isTensor() ? at::add(a, b.toTensor()) : at::add(a, b.toScalar());
    case PointwiseOp::kSub:
      return b.isTensor() ? at::sub(a, b.toTensor()) : at::sub(a, b.toScalar());
    case PointwiseOp::kMul:
      return b.isTensor() ? at::mul(a, b.toTensor()) : at::mul(a, b.toScalar());
    case PointwiseOp::kDiv:
      return b.isTensor() ? at::div(a, b.toTensor()) : at::div(a, b.toScalar());
    case PointwiseOp::kGt:
    case PointwiseOp::kLt:
    case PointwiseOp::kGe:
    case PointwiseOp::kLe:
    case PointwiseOp::kEq:
    case PointwiseOp::kNe:
    case PointwiseOp::kToFloat:
    case PointwiseOp::kToBool:
    case PointwiseOp::kToInt32:
    case PointwiseOp::kToInt64:
    case PointwiseOp::kWhere:
    case PointwiseOp::kMaskedFill:
      break;  // exact: never probed
    case PointwiseOp::kNeg:
      return at::neg(a);
    case PointwiseOp::kAbs:
      return at::abs(a);
    case PointwiseOp::kRelu:
      return at::relu(a);
    case PointwiseOp::kSigmoid:
      return at::sigmoid(a);
    case PointwiseOp::kTanh:
      return at::tanh(a);
    case PointwiseOp::kExp:
      return at::exp(a);
    case PointwiseOp::kLog:
      return at::log(a);
    case PointwiseOp::kLog1p:
      return at::log1p(a);
    case PointwiseOp::kSqrt:
      return at::sqrt(a);
    case PointwiseOp::kRsqrt:
      return at::rsqrt(a);
    case PointwiseOp::kSilu:
      return at::silu(a);
    case PointwiseOp::kGelu:
      return at::gelu(a, "none");
    case PointwiseOp::kGeluTanh:
      return at::gelu(a, "tanh");
    case PointwiseOp::kHardswish:
      return at::hardswish(a);
    case PointwiseOp::kHardsigmoid:
      return at::hardsigmoid(a);
    case PointwiseOp::kLeakyRelu:
      return at::leaky_relu(a, lo);
    case PointwiseOp::kClamp:
      return at::clamp(a, lo, hi);
    case PointwiseOp::kClampMin:
      return at::clamp(a, lo, c10::nullopt);
    case PointwiseOp::kClampMax:
      return at::clamp(a, c10::nullopt, hi);
  }
  return a;
}

bool SameBits(const at::Tensor& expected, const at::Tensor& actual) {
  const at::Tensor expected_nan = expected.isnan();
  return at::equal(expected_nan, actual.isnan()) &&
         at::equal(expected.masked_fill(expected_nan, 0).contiguous().view(at::kInt),
                   actual.masked_fill(expected_nan, 0).contiguous().view(at::kInt));
}

constexpr float kProbeLo = -1.5f, kProbeHi = 2.5f;
constexpr double kProbeScalar = 0.37;

// One probe of an op: rows of length n of a and b (or the scalar), and
// ATen's result on them.
struct ProbeCase {
  int64_t n;
  at::Tensor a, b;  // b undefined: the scalar
  at::Tensor expected;
};

// The probes of `op`, ATen run once for each.
std::vector<ProbeCase> ProbeCases(PointwiseOp op) {
  std::vector<ProbeCase> cases;
  for (int64_t n : {1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 32, 33, 47, 64, 100, 300, 1000}) {
    // Rows of a wider tensor, and one row alone: a contiguous tensor, for
    // which ATen's kernels may choose their formulas otherwise.
    for (int64_t max_rows : {int64_t{4000}, int64_t{1}}) {
      const at::Tensor a = ProbeRows(n, 0, max_rows);
      const at::Tensor b = ProbeRows(n, 5, max_rows);
      cases.push_back({n, a, b, Aten(op, a, b, kProbeLo, kProbeHi)});
      if (NumOperands(op) == 2) {
        cases.push_back({n, a, at::Tensor(), Aten(op, a, kProbeScalar, kProbeLo, kProbeHi)});
      }
    }
  }
  return cases;
}

// Whether `range` computes `op` as ATen does with the tail rule `vector_tail`.
bool Matches(PointwiseRangeFn range, PointwiseOp op, bool vector_tail,
             const std::vector<ProbeCase>& cases) {
  PointwiseProgram program;
  program.num_inputs = 2;
  PointwiseInstruction instruction;
  instruction.op = op;
  instruction.a = 0;
  instruction.b = 1;
  instruction.lo = kProbeLo;
  instruction.hi = kProbeHi;
  instruction.vector_tail = vector_tail;
  program.code.push_back(instruction);
  for (const ProbeCase& probe : cases) {
    // The evaluator on the same rows, one range per row (row strides n + 1).
    const int64_t n = probe.n;
    const int64_t rows = probe.a.size(0);
    at::Tensor actual = at::empty({rows, n + 1}, at::kFloat).narrow(1, 0, n);
    const PointwiseInput inputs[2] = {ContiguousFloats(probe.a.data_ptr<float>()),
                                      probe.b.defined()
                                          ? ContiguousFloats(probe.b.data_ptr<float>())
                                          : Number(static_cast<float>(kProbeScalar))};
    void* outputs[1] = {actual.data_ptr<float>()};
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t begin = row * (n + 1);
      range(program, inputs, outputs, begin, begin + n);
    }
    if (!SameBits(probe.expected, actual)) return false;
  }
  return true;
}

// The evaluator of the ISA that matches ATen on the most ops.
PointwiseEvaluator Probe() {
  std::vector<std::pair<const char*, PointwiseRangeFn>> candidates;
  if (CpuRunsAvx512()) candidates.emplace_back("avx512", PointwiseRangeAvx512());
  if (CpuRunsAvx2()) candidates.emplace_back("avx2", PointwiseRangeAvx2());
  std::vector<std::vector<ProbeCase>> cases;
  for (int i = 0; i < kNumPointwiseOps; ++i) {
    const auto op = static_cast<PointwiseOp>(i);
    cases.push_back(IsExact(op) ? std::vector<ProbeCase>() : ProbeCases(op));
  }
  PointwiseEvaluator best;
  int best_count = 0;
  for (const auto& [isa, range] : candidates) {
    PointwiseEvaluator evaluator;
    evaluator.range = range;
    evaluator.isa = isa;
    int count = 0;
    for (int i = 0; i < kNumPointwiseOps; ++i) {
      const auto op = static_cast<PointwiseOp>(i);
      if (IsExact(op)) {
        evaluator.matches[i] = true;
        evaluator.split_free[i] = true;
        continue;  // not counted: the same for every ISA
      }
      const bool scalar_tail = Matches(range, op, false, cases[i]);
      const bool vector_tail = Matches(range, op, true, cases[i]);
      // A binary op needs both (see PointwiseRangeFn).
      if (NumOperands(op) == 2 ? !(scalar_tail && vector_tail) : !(scalar_tail || vector_tail)) {
        continue;
      }
      evaluator.matches[i] = true;
      evaluator.vector_tail[i] = !scalar_tail;
      evaluator.split_free[i] = scalar_tail && vector_tail;
      ++count;
    }
    if (count > best_count) {
      best = evaluator;
      best_count = count;
    }
  }
  return best;
}

}  // namespace

const PointwiseEvaluator& PointwiseEvaluatorForThisCpu() {
  static const PointwiseEvaluator kEvaluator = [] {
    // On a thread of its own, so that the probe's thousands of temporary
    // tensors come from (and go back to) that thread's malloc arena, not
    // the caller's: it fragmented the serving thread's heap enough to slow
    // the allocations of later runs measurably.
    PointwiseEvaluator evaluator;
    std::thread([&evaluator] { evaluator = Probe(); }).join();
    return evaluator;
  }();
  return kEvaluator;
}

}  // namespace ops
}  // namespace static_runtime
