#include "ops/blas_replica/replicated_linear.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "ops/blas_replica/sgemm_orders.h"

namespace static_runtime {
namespace ops {
namespace {

using Order = ReplicatedLinear::Order;

// Deterministic operands in [-1, 1), every bit of the mantissa used.
at::Tensor SampleOperand(at::IntArrayRef shape, uint32_t& state) {
  at::Tensor tensor = at::empty(shape, at::kFloat);
  float* data = tensor.data_ptr<float>();
  for (int64_t i = 0, size = tensor.numel(); i < size; ++i) {
    state = state * 1664525u + 1013904223u;
    data[i] = static_cast<float>(state >> 8) / static_cast<float>(1 << 23) - 1.0f;
  }
  return tensor;
}

bool SameBits(const at::Tensor& a, const at::Tensor& b) {
  return std::memcmp(a.data_ptr<float>(), b.data_ptr<float>(), a.numel() * sizeof(float)) == 0;
}

// Whether `replica` gives every bit of ATen's result on sample operands of
// this shape: enough samples for 4096 results, as orders that differ in any
// rounding differ in a good share of the results of random operands (small
// shapes alone can agree by chance).
bool Reproduces(const ReplicatedLinear::Replica& replica, int64_t rows, int64_t n, int64_t k,
                bool has_bias) {
  constexpr int64_t kResults = 4096;
  uint32_t state = 12345;
  for (int64_t compared = 0; compared < kResults; compared += rows * n) {
    const at::Tensor weight = SampleOperand({n, k}, state);
    const at::Tensor x = SampleOperand({rows, k}, state);
    const at::Tensor bias = has_bias ? SampleOperand({n}, state) : at::Tensor();
    const float* bias_data = has_bias ? bias.data_ptr<float>() : nullptr;
    at::Tensor expected = at::empty({rows, n}, at::kFloat);
    AtenProduct(x, weight.t(), bias, expected);
    at::Tensor y = at::empty({rows, n}, at::kFloat);
    if (replica.order == Order::kChain) {
      const std::vector<float> panels = blas_replica::PackPanels(weight.data_ptr<float>(), n, k);
      blas_replica::ChainProduct(replica.block_ends, replica.paired_rows, panels.data(), bias_data,
                                 x.data_ptr<float>(), k, rows, n, k, y.data_ptr<float>());
    } else {
      blas_replica::LaneTreeProduct(weight.data_ptr<float>(), bias_data, x.data_ptr<float>(), k,
                                    rows, n, k, y.data_ptr<float>());
    }
    if (!SameBits(expected, y)) return false;
  }
  return true;
}

// The OpenBLAS core this process's BLAS runs (openblas_get_corename(), lower
// case), or "" when BLAS is not OpenBLAS.
std::string OpenBlasCore() {
  using Getter = const char* (*)();
  const auto getter = reinterpret_cast<Getter>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  const char* name = getter != nullptr ? getter() : nullptr;
  return name != nullptr ? absl::AsciiStrToLower(absl::StripAsciiWhitespace(name)) : "";
}

// Whether BLAS runs OpenBLAS kernels whose order sgemm_orders.h documents:
// the Chain those of its Haswell, Zen, SkylakeX and Cooperlake cores, the
// LaneTree those of its AVX-512 ones. Under other kernels (Prescott's, which
// OpenBLAS 0.3.21 picks on CPUs it does not know, such as an Emerald Rapids)
// an order can agree with BLAS's on every sample and still differ in a few
// results of other operands (a few terms summed in another association):
// ATen's call computes those products.
bool DocumentedCore(bool lane_tree) {
  static const std::string kCore = OpenBlasCore();
  const bool avx512 = kCore == "skylakex" || kCore == "cooperlake";
  return lane_tree ? avx512 : avx512 || kCore == "haswell" || kCore == "zen";
}

// The order that reproduces ATen's products of this shape, if any: the
// Chain with the blocks of k of each GEMM_Q OpenBLAS's cores use (and a few
// more), cut by either driver, unpaired, then with the rows of full 4-row
// tiles paired; then the LaneTree.
ReplicatedLinear::Replica Prove(int64_t rows, int64_t n, int64_t k, bool has_bias) {
  // A product to one output column (n == 1: an LSTM projected to one value,
  // h W_hr^T with W_hr [1, hidden]) is one dot product per row, which
  // OpenBLAS may sum by another kernel than its GEMM blocks: on an AMD Zen 5
  // (OpenBLAS's own core choice) it differed from the order the probe
  // proved (RC_PARAMS="seed=15144602292830740714" //ops/rnn:lstm_test). ATen's
  // call computes it.
  if (n == 1) return {};
  if (!blas_replica::ChainAvailable() || !DocumentedCore(/*lane_tree=*/false)) return {};
  std::vector<int64_t> pairings = {0};
  if (rows >= 4) pairings.push_back(rows / 4 * 4);
  for (const int64_t paired_rows : pairings) {
    std::vector<std::vector<int64_t>> tried;
    for (const bool threaded : {false, true}) {
      for (const int64_t q : {320, 448, 384, 256, 512}) {
        ReplicatedLinear::Replica chain{Order::kChain, blas_replica::KBlocks(k, q, threaded),
                                        paired_rows};
        if (std::find(tried.begin(), tried.end(), chain.block_ends) != tried.end()) continue;
        tried.push_back(chain.block_ends);
        if (Reproduces(chain, rows, n, k, has_bias)) return chain;
      }
    }
  }
  const ReplicatedLinear::Replica lane_tree{Order::kLaneTree, {}};
  if (blas_replica::LaneTreeAvailable() && DocumentedCore(/*lane_tree=*/true) &&
      Reproduces(lane_tree, rows, n, k, has_bias)) {
    return lane_tree;
  }
  return {};
}

}  // namespace

void AtenProduct(const at::Tensor& x, const at::Tensor& weight_t, const at::Tensor& bias,
                 at::Tensor& y) {
  if (bias.defined()) {
    at::addmm_out(y, bias, x, weight_t);
  } else {
    at::mm_out(y, x, weight_t);
  }
}

const ReplicatedLinear::Replica& ReplicatedLinear::AtenReplica() {
  static const Replica kAten;
  return kAten;
}

ReplicatedLinear::ReplicatedLinear(at::Tensor weight, at::Tensor bias)
    : weight_(std::move(weight)),
      weight_t_(weight_.t()),
      bias_(std::move(bias)),
      n_(weight_.size(0)),
      k_(weight_.size(1)) {
  TORCH_CHECK(weight_.scalar_type() == at::kFloat && weight_.dim() == 2,
              "ReplicatedLinear: the weight must be a float32 matrix");
  TORCH_CHECK(!bias_.defined() ||
                  (bias_.scalar_type() == at::kFloat && bias_.dim() == 1 && bias_.size(0) == n_),
              "ReplicatedLinear: the bias must be ", n_, " float32 values");
  if (blas_replica::ChainAvailable() && weight_.is_contiguous() &&
      (!bias_.defined() || bias_.is_contiguous())) {
    panels_ = blas_replica::PackPanels(weight_.data_ptr<float>(), n_, k_);
    charge_.emplace(panels_.size() * sizeof(float));
  }
}

const ReplicatedLinear::Replica& ReplicatedLinear::ReplicaFor(int64_t rows) const {
  if (rows <= 0 || n_ == 0 || k_ == 0 || panels_.empty()) return AtenReplica();
  thread_local absl::flat_hash_map<std::array<int64_t, 4>, Replica> proved;
  const std::array<int64_t, 4> shape{rows, n_, k_, bias_.defined() ? 1 : 0};
  auto found = proved.find(shape);
  if (found == proved.end()) {
    found = proved.emplace(shape, Prove(rows, n_, k_, bias_.defined())).first;
  }
  return found->second;
}

ReplicatedLinear::Order ReplicatedLinear::OrderFor(int64_t rows) const {
  return ReplicaFor(rows).order;
}

int64_t ReplicatedLinear::PairedRowsFor(int64_t rows) const { return ReplicaFor(rows).paired_rows; }

void ReplicatedLinear::Run(const at::Tensor& x, at::Tensor& y) const {
  const int64_t rows = x.size(0);
  const bool replicable = x.scalar_type() == at::kFloat && x.dim() == 2 && x.size(1) == k_ &&
                          x.stride(1) == 1 && x.stride(0) >= k_ && y.scalar_type() == at::kFloat &&
                          y.dim() == 2 && y.size(0) == rows && y.size(1) == n_ && y.is_contiguous();
  const Replica& replica = replicable ? ReplicaFor(rows) : AtenReplica();
  const float* bias = bias_.defined() ? bias_.data_ptr<float>() : nullptr;
  switch (replica.order) {
    case Order::kChain:
      blas_replica::ChainProduct(replica.block_ends, replica.paired_rows, panels_.data(), bias,
                                 x.data_ptr<float>(), x.stride(0), rows, n_, k_,
                                 y.data_ptr<float>());
      return;
    case Order::kLaneTree:
      blas_replica::LaneTreeProduct(weight_.data_ptr<float>(), bias, x.data_ptr<float>(),
                                    x.stride(0), rows, n_, k_, y.data_ptr<float>());
      return;
    case Order::kAten:
      AtenProduct(x, weight_t_, bias_, y);
      return;
  }
}

}  // namespace ops
}  // namespace static_runtime
