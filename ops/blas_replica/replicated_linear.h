// y = x W^T + b with constant weights, bit for bit as ATen computes it
// (at::addmm_out(y, b, x, W.t()), at::mm_out without a bias), faster where
// this process's BLAS sums in an order ops/blas_replica/sgemm_orders.h
// reproduces: there W is packed once, where sgemm packs it on every call
// (about 20 us for a 4 x 128 -> 384 product, four times the arithmetic's
// time). Which order, if any, BLAS takes for a shape is proved, not
// assumed: the first product of each shape on each thread is also computed
// by ATen on random operands, and an order is used only if it gave every
// bit of ATen's result; shapes no order reproduces (another BLAS, another
// OpenBLAS core, a CPU without AVX2) run ATen's call. (OpenBLAS's
// threaded products cut k differently: a proof holds while its thread count
// does, which is fixed when it loads unless openblas_set_num_threads is
// called.)
//
// For the step products of recurrent networks (ops/rnn/lstm.h), where a few
// rows meet the same weights many times.
#ifndef STATIC_RUNTIME_OPS_BLAS_REPLICA_REPLICATED_LINEAR_H_
#define STATIC_RUNTIME_OPS_BLAS_REPLICA_REPLICATED_LINEAR_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "ATen/ATen.h"
#include "execution/kernel_caches.h"

namespace static_runtime {
namespace ops {

// ATen's product y = x weight_t (+ bias where defined), into y: what
// ReplicatedLinear runs for shapes it does not replicate.
void AtenProduct(const at::Tensor& x, const at::Tensor& weight_t, const at::Tensor& bias,
                 at::Tensor& y);

class ReplicatedLinear {
 public:
  // How a product of some shape runs: ATen's call, or sgemm_orders.h's
  // Chain (with its blocks of k) or LaneTree.
  enum class Order { kAten, kChain, kLaneTree };
  struct Replica {
    Order order = Order::kAten;
    std::vector<int64_t> block_ends;  // kChain's
    int64_t paired_rows = 0;          // kChain's (sgemm_orders.h)
  };

  // `weight`: [n, k] float32 CPU; `bias`: [n] float32 CPU or undefined.
  // Products replicate only a contiguous weight and bias (others, laid out
  // otherwise, make BLAS sum otherwise): ATen's call computes the rest.
  ReplicatedLinear(at::Tensor weight, at::Tensor bias);

  // y = x W^T + b. `x`: [rows, k] float32 with contiguous rows; `y`: [rows,
  // n] float32, contiguous, not overlapping x.
  void Run(const at::Tensor& x, at::Tensor& y) const;

  // The order products of `rows` rows take on this thread (proved on first
  // use).
  Order OrderFor(int64_t rows) const;

  // The rows the Chain pairs in products of `rows` rows (sgemm_orders.h).
  int64_t PairedRowsFor(int64_t rows) const;

 private:
  // What a shape no order reproduces runs: ATen's call.
  static const Replica& AtenReplica();

  // This thread's proof for `rows` rows, valid until its next call.
  const Replica& ReplicaFor(int64_t rows) const;

  at::Tensor weight_, weight_t_, bias_;
  int64_t n_, k_;
  std::vector<float> panels_;  // sgemm_orders.h's PackPanels(W); empty: never replicated
  std::optional<PreparedWeightCharge> charge_;  // of panels_ (execution/kernel_caches.h)
};

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_BLAS_REPLICA_REPLICATED_LINEAR_H_
