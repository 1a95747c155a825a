#include "ops/linalg/onednn_matmul.h"

#include <algorithm>
#include <exception>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "execution/background_work.h"
#include "execution/product_clock.h"
#include "glog/logging.h"

namespace static_runtime {
namespace onednn {

using dnnl::memory;

namespace {

// Whether a matmul of `rows` rows and `n` outputs, which oneDNN's
// implementation `implementation` (its impl_info_str) runs with the weight in
// the layout it chose, runs faster with the weight as it is stored ([N, K]
// row-major). oneDNN's gemm-based matmul, its only one for CPUs without
// AVX-512, chooses [K, N] row-major and then runs products of many rows into
// 1024 or more outputs at 27-28 GFLOP/s on AMD Zen, against 33-35.5 with the
// weight as stored (188 and 256 x 256 x 1024, 128 x 768 x 3072, 200 x 512 x
// 2048; one thread); for fewer rows or outputs its choice is as fast or
// faster (8 x 512 x 512: 26 against 21; 16 x 768 x 3072: 25 against 22).
// Its choice is slow too for 512 outputs (rows of 2 KB in [K, N]: the
// cache sets alias; AMD Zen 3: 64, 128 and 256 rows x 512 x 512, 100 x
// 768 x 512 at 53-69 GFLOP/s, against 78-96 with the weight as stored).
// The brgemm matmul (AVX-512) packs the weight in a blocked layout of its own.
bool PrefersWeightsAsStored(const std::string& implementation, int64_t rows, int64_t n) {
  return absl::StartsWith(implementation, "gemm") && rows >= 64 && (n >= 1024 || n % 512 == 0);
}

// Row counts up to this many blocks run in blocks while their plan is made:
// a block costs 0.3-1 us more than its rows in one plan (AMD Zen 5, one
// thread: 128 x 32 x 64 in 8 blocks 10.7 us against 3.5; 384 x 768 x 3072
// in 24 blocks 8.9 ms against 8.4), a plan 200-600 us.
constexpr int64_t kMaxBlocksWhilePlanned = 256;

}  // namespace

struct PackedLinear::State {
  State(at::Tensor weight_in, at::Tensor bias_in)
      : weight(std::move(weight_in)),
        bias(std::move(bias_in)),
        // The matmul multiplies by the [K, N] matrix: the weight transposed.
        packed(FloatDesc({weight.size(1), weight.size(0)}, memory::format_tag::ba),
               weight.data_ptr()) {
    // The weight is packed now, at load time, rather than by a shape's
    // first call; oneDNN's brgemm chooses its layout from N and K alone, so
    // every row count's plan shares it.
    const dnnl::matmul::primitive_desc pd = Describe(kBlockRows);
    if (absl::StartsWith(pd.impl_info_str(), "brg")) {
      block_plan = MakePlan(pd);
      // Run once now: the first run of a primitive pays for touching its
      // code and this thread's scratchpad (40-120 us measured).
      std::vector<float> zeros(kBlockRows * k()), result(kBlockRows * n());
      block_plan->Execute({{DNNL_ARG_SRC, zeros.data()}, {DNNL_ARG_DST, result.data()}});
    } else {
      packed.Get(pd.weights_desc());
    }
  }

  int64_t k() const { return weight.size(1); }
  int64_t n() const { return weight.size(0); }

  // The matmul of `rows` rows, on the weight's layout of oneDNN's choice.
  dnnl::matmul::primitive_desc Describe(int64_t rows) const {
    const memory::desc src = FloatDesc({rows, k()}, memory::format_tag::ab);
    const memory::desc dst = FloatDesc({rows, n()}, memory::format_tag::ab);
    const memory::desc any_weights = FloatDesc({k(), n()}, memory::format_tag::any);
    const memory::desc bias_desc =
        bias.defined() ? FloatDesc({1, n()}, memory::format_tag::ab) : memory::desc();
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, any_weights, bias_desc, dst), attr,
                                    CpuEngine());
    if (PrefersWeightsAsStored(pd.impl_info_str(), rows, n())) {
      pd = dnnl::matmul::primitive_desc(
          dnnl::matmul::desc(src, FloatDesc({k(), n()}, memory::format_tag::ba), bias_desc, dst),
          attr, CpuEngine());
    }
    return pd;
  }

  std::unique_ptr<Plan> MakePlan(const dnnl::matmul::primitive_desc& pd) {
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, memory(pd.src_desc(), CpuEngine(), nullptr)},
        {DNNL_ARG_DST, memory(pd.dst_desc(), CpuEngine(), nullptr)},
        {DNNL_ARG_WEIGHTS, packed.Get(pd.weights_desc())},
    };
    if (bias.defined()) {
      args.emplace(DNNL_ARG_BIAS, memory(pd.bias_desc(), CpuEngine(), bias.data_ptr()));
    }
    return std::make_unique<Plan>(dnnl::matmul(pd), std::move(args), pd.scratchpad_desc());
  }

  // The product of `rows` rows in blocks of kBlockRows on block_plan, the
  // last block's rows copied into (and out of) this thread's buffers.
  void RunInBlocks(const float* src, int64_t rows, float* out) const {
    const auto run = [&](const float* block_src, float* block_out) {
      block_plan->Execute(
          {{DNNL_ARG_SRC, const_cast<float*>(block_src)}, {DNNL_ARG_DST, block_out}});
    };
    int64_t row = 0;
    for (; row + kBlockRows <= rows; row += kBlockRows) run(src + row * k(), out + row * n());
    if (row == rows) return;
    thread_local std::vector<float> last_src, last_out;
    last_src.assign(kBlockRows * k(), 0.0f);
    last_out.resize(kBlockRows * n());
    std::copy(src + row * k(), src + rows * k(), last_src.begin());
    run(last_src.data(), last_out.data());
    std::copy(last_out.begin(), last_out.begin() + (rows - row) * n(), out + row * n());
  }

  // Whether the caller is to post the making of the plan of `rows`: false
  // while it is being made (or could not be made: those rows stay in blocks).
  bool StartMaking(int64_t rows) {
    absl::MutexLock lock(&mutex);
    return being_made.insert(rows).second;
  }

  // The background work: the plan of `rows`, into the cache.
  void MakeInBackground(int64_t rows) {
    try {
      plans.Get({rows, 0, 0, 0}, [&] { return MakePlan(Describe(rows)); });
    } catch (const std::exception& e) {
      LOG(WARNING) << "linear of " << rows << " rows stays in blocks: no oneDNN plan: " << e.what();
      return;
    }
    absl::MutexLock lock(&mutex);
    being_made.erase(rows);
  }

  const at::Tensor weight;
  const at::Tensor bias;
  PackedWeights packed;
  PlanCache<> plans;
  std::unique_ptr<const Plan> block_plan;  // null: not brgemm, a new row count makes its plan
  absl::Mutex mutex;
  absl::flat_hash_set<int64_t> being_made ABSL_GUARDED_BY(mutex);
};

PackedLinear::PackedLinear(at::Tensor weight, at::Tensor bias)
    : state_(std::make_shared<State>(std::move(weight), std::move(bias))) {}

int64_t PackedLinear::in_features() const { return state_->k(); }
int64_t PackedLinear::out_features() const { return state_->n(); }
bool PackedLinear::RunsNewRowCountsInBlocks() const { return state_->block_plan != nullptr; }

void PackedLinear::Run(const float* src, int64_t rows, float* out) {
  State& state = *state_;
  const ops::ProductScope product(1, rows, state.k(), state.n());
  std::shared_ptr<const Plan> plan = state.plans.Find({rows, 0, 0, 0});
  if (plan == nullptr && state.block_plan != nullptr &&
      rows <= kMaxBlocksWhilePlanned * kBlockRows) {
    if (rows != kBlockRows && state.StartMaking(rows)) {
      PostBackgroundWork([shared = state_, rows] { shared->MakeInBackground(rows); });
    }
    state.RunInBlocks(src, rows, out);
    return;
  }
  if (plan == nullptr) {
    plan = state.plans.Get({rows, 0, 0, 0}, [&] { return state.MakePlan(state.Describe(rows)); });
  }
  plan->Execute({{DNNL_ARG_SRC, const_cast<float*>(src)}, {DNNL_ARG_DST, out}});
}

}  // namespace onednn
}  // namespace static_runtime
