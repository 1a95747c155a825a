#include "execution/kernel_caches.h"

#include <utility>

namespace static_runtime {
namespace {

thread_local KernelCacheScope* innermost = nullptr;

size_t Read(const std::atomic<int64_t>& counter) {
  return static_cast<size_t>(counter.load(std::memory_order_relaxed));
}

}  // namespace

KernelCacheStats& KernelCacheStats::operator+=(const KernelCacheStats& other) {
  shape_plans += other.shape_plans;
  shape_plans_made += other.shape_plans_made;
  shape_plans_evicted += other.shape_plans_evicted;
  prepared_weight_bytes += other.prepared_weight_bytes;
  prepared_weights += other.prepared_weights;
  return *this;
}

KernelCacheStats KernelCacheAccount::Stats() const {
  KernelCacheStats stats;
  stats.shape_plans = Read(held_);
  stats.shape_plans_made = Read(made_);
  stats.shape_plans_evicted = Read(evicted_);
  stats.prepared_weight_bytes = Read(weight_bytes_);
  stats.prepared_weights = Read(weights_);
  return stats;
}

KernelCacheScope::KernelCacheScope(std::shared_ptr<KernelCacheAccount> account)
    : account_(std::move(account)), previous_(innermost) {
  innermost = this;
}

KernelCacheScope::~KernelCacheScope() { innermost = previous_; }

std::shared_ptr<KernelCacheAccount> KernelCacheScope::Current() {
  return innermost != nullptr ? innermost->account_ : std::make_shared<KernelCacheAccount>();
}

PreparedWeightCharge::PreparedWeightCharge(size_t bytes)
    : account_(KernelCacheScope::Current()), bytes_(bytes) {
  account_->WeightPrepared(bytes_);
}

PreparedWeightCharge::~PreparedWeightCharge() {
  if (account_ != nullptr) account_->WeightDropped(bytes_);
}

PreparedWeightCharge::PreparedWeightCharge(PreparedWeightCharge&& other) noexcept
    : account_(std::move(other.account_)), bytes_(other.bytes_) {
  other.account_ = nullptr;
}

PreparedWeightCharge& PreparedWeightCharge::operator=(PreparedWeightCharge&& other) noexcept {
  if (this != &other) {
    if (account_ != nullptr) account_->WeightDropped(bytes_);
    account_ = std::move(other.account_);
    bytes_ = other.bytes_;
    other.account_ = nullptr;
  }
  return *this;
}

}  // namespace static_runtime
