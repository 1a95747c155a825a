// Floating-point work of the nodes whose cost is arithmetic: matrix
// products (mm, bmm, matmul, addmm, baddbmm, linear, linear_fused),
// convolutions (conv1d/2d/3d, _convolution, conv2d_fused) and attention
// (multi-head self-attention and transformer encoder layers, ATen's ops and
// ours: their projections, scores, weighted sums and feed-forward linears,
// over each sequence's own tokens for a nested source), counted as 2
// operations per multiply-add from the shapes a run saw; and the peak this
// machine reaches on one large matrix product, to compare against.
#ifndef STATIC_RUNTIME_RUNTIME_REPORTS_FLOPS_H_
#define STATIC_RUNTIME_RUNTIME_REPORTS_FLOPS_H_

#include <string>

#include "ATen/ATen.h"
#include "ops/core/node_io.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace reports {

// The operations `node` just performed on `io` (after its kernel ran); 0 for
// any other kind of node, or inputs it cannot read.
double NodeFlops(const torch::jit::Node& node, const NodeIO& io);

// The fastest 512 x 512 float matrix product this machine does on the
// current intra-op threads: ATen's (BLAS's sgemm, on the core OpenBLAS
// picked) or oneDNN's sgemm (the best fp32 kernel for the CPU's ISA).
// On a shared machine calls run at different speeds from one moment to the
// next, so the meter is sampled between a model's runs (one call of each
// kernel a sample) and a model's products, timed over all its runs, are
// compared with the mean over all the samples of the faster kernel.
struct PeakProduct {
  double gflops = 0;       // over all sampled calls
  double best_gflops = 0;  // the fastest call's
  std::string kernel;      // which of the two
};

class PeakProductMeter {
 public:
  PeakProductMeter();
  void Sample();
  PeakProduct Result() const;  // zeros before the first sample

 private:
  enum class Kernel { kAten, kOneDnn };
  struct Timing {
    double total_seconds = 0, best_seconds = 1e9;
    int calls = 0;
  };
  double Call(Kernel kernel);  // seconds

  at::Tensor a_, b_, c_;
  Timing timings_[2];
};

}  // namespace reports
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_REPORTS_FLOPS_H_
