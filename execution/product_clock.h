// The time matrix products take inside kernels that do more than one
// product (attention, transformer encoder layers), for `sr profile` to tell
// how close the products themselves run to the machine's limit: a node's
// time also holds its softmax, norms and layout steps. Off by default; then
// a ProductScope costs one thread-local read.
//
// Contract: counting is per thread. While a thread's clock is on, each
// ProductScope on that thread adds its product's operations (2 per
// multiply-add) and the wall time from its construction to its
// destruction; products that other threads run are not counted.
#ifndef STATIC_RUNTIME_EXECUTION_PRODUCT_CLOCK_H_
#define STATIC_RUNTIME_EXECUTION_PRODUCT_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace static_runtime {
namespace ops {

struct ProductWork {
  double flops = 0;
  double seconds = 0;
};

// Turns this thread's counting on or off; either way the count restarts.
void CountProducts(bool on);

// What this thread counted since the last call (or since counting started),
// and restarts the count.
ProductWork TakeProductWork();

// Counts `batch` products of [rows, inner] x [inner, cols] over its
// lifetime.
class ProductScope {
 public:
  ProductScope(int64_t batch, int64_t rows, int64_t inner, int64_t cols);
  ~ProductScope();
  ProductScope(const ProductScope&) = delete;
  ProductScope& operator=(const ProductScope&) = delete;

 private:
  double flops_ = 0;  // 0: the clock is off
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_EXECUTION_PRODUCT_CLOCK_H_
