#include "execution/product_clock.h"

namespace static_runtime {
namespace ops {
namespace {

struct ThreadCount {
  bool on = false;
  ProductWork work;
};

ThreadCount& Count() {
  thread_local ThreadCount count;
  return count;
}

}  // namespace

void CountProducts(bool on) {
  Count().on = on;
  Count().work = {};
}

ProductWork TakeProductWork() {
  const ProductWork work = Count().work;
  Count().work = {};
  return work;
}

ProductScope::ProductScope(int64_t batch, int64_t rows, int64_t inner, int64_t cols) {
  if (!Count().on) return;
  flops_ = 2.0 * static_cast<double>(batch) * static_cast<double>(rows) *
           static_cast<double>(inner) * static_cast<double>(cols);
  start_ = std::chrono::steady_clock::now();
}

ProductScope::~ProductScope() {
  if (flops_ == 0) return;
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start_;
  ProductWork& work = Count().work;
  work.flops += flops_;
  work.seconds += took.count();
}

}  // namespace ops
}  // namespace static_runtime
