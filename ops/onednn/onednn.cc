#include "ops/onednn/onednn.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "ir/operators/operators.h"
#include "ops/activations/clamp_in_place.h"
#include "ops/activations/epilogue_activations.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace onednn {

const dnnl::engine& CpuEngine() {
  static const auto* const kEngine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *kEngine;
}

dnnl::memory::desc FloatDesc(const dnnl::memory::dims& dims, dnnl::memory::format_tag tag) {
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, tag);
}

void* ThreadScratchpad(size_t bytes, int slot) {
  thread_local std::array<at::Tensor, 3> buffers;
  at::Tensor& buffer = buffers.at(slot);
  if (!buffer.defined() || static_cast<size_t>(buffer.numel()) < bytes) {
    buffer = at::empty({static_cast<int64_t>(bytes)}, at::kByte);
  }
  return buffer.data_ptr();
}

namespace {
uint64_t NextPlanId() {
  static std::atomic<uint64_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

Plan::Plan(dnnl::primitive primitive, std::unordered_map<int, dnnl::memory> args,
           dnnl::memory::desc scratchpad)
    : id_(NextPlanId()),
      primitive_(std::move(primitive)),
      scratchpad_bytes_(scratchpad.get_size()),
      prototype_args_(std::move(args)) {
  prototype_args_.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(scratchpad, CpuEngine(), nullptr));
}

Plan::ThreadState& Plan::ForThisThread() const {
  // Plans this thread has run, by id (an entry of a destroyed plan stays,
  // never looked up again: a few bytes per plan and thread).
  thread_local absl::flat_hash_map<uint64_t, ThreadState*> mine;
  auto found = mine.find(id_);
  if (found != mine.end()) return *found->second;
  const std::thread::id id = std::this_thread::get_id();
  absl::MutexLock lock(&mutex_);
  std::unique_ptr<ThreadState>& state = threads_[id];
  if (state == nullptr) {
    state = std::make_unique<ThreadState>();
    state->stream = dnnl::stream(CpuEngine());
    for (const auto& [arg, memory] : prototype_args_) {
      state->args.emplace(arg,
                          dnnl::memory(memory.get_desc(), CpuEngine(), memory.get_data_handle()));
    }
  }
  mine.emplace(id_, state.get());
  return *state;
}

void Plan::Execute(std::initializer_list<std::pair<int, void*>> pointers) const {
  ThreadState& state = ForThisThread();
  for (const auto& [arg, pointer] : pointers) state.args.at(arg).set_data_handle(pointer);
  state.args.at(DNNL_ARG_SCRATCHPAD).set_data_handle(ThreadScratchpad(scratchpad_bytes_));
  primitive_.execute(state.stream, state.args);
}

std::unique_ptr<Plan> MakeReorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::reorder::primitive_desc pd(CpuEngine(), from, CpuEngine(), to, attr);
  return std::make_unique<Plan>(dnnl::reorder(pd),
                                std::unordered_map<int, dnnl::memory>{
                                    {DNNL_ARG_FROM, dnnl::memory(from, CpuEngine(), nullptr)},
                                    {DNNL_ARG_TO, dnnl::memory(to, CpuEngine(), nullptr)}},
                                pd.scratchpad_desc());
}

ReorderedPlan::ReorderedPlan(dnnl::primitive primitive, const dnnl::memory::desc& primitive_src,
                             const dnnl::memory::desc& primitive_dst,
                             std::unordered_map<int, dnnl::memory> args,
                             const dnnl::memory::desc& scratchpad, const dnnl::memory::desc& src,
                             const dnnl::memory::desc& dst) {
  if (primitive_src != src) {
    to_src_ = MakeReorder(src, primitive_src);
    src_bytes_ = primitive_src.get_size();
  }
  if (primitive_dst != dst) {
    from_dst_ = MakeReorder(primitive_dst, dst);
    dst_bytes_ = primitive_dst.get_size();
  }
  args.emplace(DNNL_ARG_SRC, dnnl::memory(primitive_src, CpuEngine(), nullptr));
  args.emplace(DNNL_ARG_DST, dnnl::memory(primitive_dst, CpuEngine(), nullptr));
  primitive_ = std::make_unique<Plan>(std::move(primitive), std::move(args), scratchpad);
}

void ReorderedPlan::Execute(void* src, void* dst) const {
  void* primitive_src = src;
  if (to_src_ != nullptr) {
    primitive_src = ThreadScratchpad(src_bytes_, 1);
    to_src_->Execute({{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, primitive_src}});
  }
  void* primitive_dst = from_dst_ == nullptr ? dst : ThreadScratchpad(dst_bytes_, 2);
  primitive_->Execute({{DNNL_ARG_SRC, primitive_src}, {DNNL_ARG_DST, primitive_dst}});
  if (from_dst_ != nullptr) {
    from_dst_->Execute({{DNNL_ARG_FROM, primitive_dst}, {DNNL_ARG_TO, dst}});
  }
}

std::optional<FrozenWeight> ReadFrozenWeight(const torch::jit::Node* node, int64_t weight_dim) {
  const c10::optional<c10::IValue> weight = torch::jit::toIValue(node->input(1));
  const c10::optional<c10::IValue> bias = torch::jit::toIValue(node->input(2));
  if (!weight || !bias || !weight->isTensor()) return std::nullopt;
  FrozenWeight frozen;
  frozen.weight = weight->toTensor().contiguous();
  if (frozen.weight.dim() != weight_dim || frozen.weight.scalar_type() != at::kFloat) {
    return std::nullopt;
  }
  if (bias->isTensor()) {
    frozen.bias = bias->toTensor().contiguous();
    if (frozen.bias.scalar_type() != at::kFloat || frozen.bias.dim() != 1) return std::nullopt;
  } else if (!bias->isNone()) {
    return std::nullopt;
  }
  return frozen;
}

std::optional<FrozenParams> ReadFrozenParams(const torch::jit::Node* node, int64_t weight_dim) {
  std::optional<FrozenWeight> frozen = ReadFrozenWeight(node, weight_dim);
  const size_t n = node->inputs().size();
  const c10::optional<c10::IValue> activation = torch::jit::toIValue(node->input(n - 3));
  const c10::optional<c10::IValue> min_value = torch::jit::toIValue(node->input(n - 2));
  const c10::optional<c10::IValue> max_value = torch::jit::toIValue(node->input(n - 1));
  if (!frozen || !activation || !min_value || !max_value) return std::nullopt;
  if (frozen->bias.defined() && frozen->bias.size(0) != frozen->weight.size(0)) {
    return std::nullopt;
  }
  FrozenParams params;
  static_cast<FrozenWeight&>(params) = *std::move(frozen);
  params.activation = ops::FusedActivation::Parse(activation->toStringRef(), min_value->toDouble(),
                                                  max_value->toDouble());
  return params;
}

std::optional<std::vector<int64_t>> ConstantIntList(const torch::jit::Value* value, size_t size) {
  const c10::optional<c10::IValue> constant = torch::jit::toIValue(value);
  if (!constant || !constant->isIntList()) return std::nullopt;
  std::vector<int64_t> list = constant->toIntVector();
  if (list.size() == 1) list.resize(size, list[0]);
  if (list.size() != size) return std::nullopt;
  return list;
}

void ApplyActivation(const FrozenParams& params, at::Tensor& out) {
  using Kind = ops::FusedActivation::Kind;
  const ops::FusedActivation& activation = params.activation;
  if (activation.kind == Kind::kNone) return;
  if (out.scalar_type() != at::kFloat || !out.is_non_overlapping_and_dense()) {
    ops::ActivationInPlace(out, activation);
    return;
  }
  float* data = out.data_ptr<float>();
  const int64_t count = out.numel();
  switch (activation.kind) {
    case Kind::kRelu:
      ops::ReluInPlace(data, count);
      return;
    case Kind::kHardtanh:
      ops::ClampInPlace(data, count, static_cast<float>(activation.min_value),
                        static_cast<float>(activation.max_value));
      return;
    case Kind::kHardswish:
      ops::HardswishInPlace(data, count);
      return;
    case Kind::kHardsigmoid:
      ops::HardsigmoidInPlace(data, count);
      return;
    case Kind::kSilu:
      ops::SiluInPlace(data, count);
      return;
    case Kind::kGelu:
      ops::GeluInPlace(data, count);
      return;
    case Kind::kNone:
      return;
    case Kind::kSigmoid:
      ops::ActivationInPlace(out, activation);
      return;
  }
}

namespace {

// Every live cache, by the weight it packs.
struct Caches {
  absl::Mutex mutex;
  absl::flat_hash_map<const void*, std::vector<PackedWeights*>> by_weight ABSL_GUARDED_BY(mutex);
};
Caches& LiveCaches() {
  static auto* const caches = new Caches();
  return *caches;
}

thread_local const PreloadedPacks::Map* preloaded = nullptr;

bool SameFormat(const dnnl_memory_desc_t& a, const dnnl_memory_desc_t& b) {
  return std::memcmp(&a, &b, sizeof(a)) == 0;
}

}  // namespace

namespace {
std::atomic<uint64_t> plans_made{0};
}  // namespace

uint64_t PlansMade() { return plans_made.load(std::memory_order_relaxed); }
void CountPlanMade() { plans_made.fetch_add(1, std::memory_order_relaxed); }

PreloadedPacks::PreloadedPacks(Map packs) : packs_(std::move(packs)), previous_(preloaded) {
  preloaded = &packs_;
}

PreloadedPacks::~PreloadedPacks() { preloaded = previous_; }

PackedWeights::PackedWeights(dnnl::memory::desc plain, void* data)
    : plain_(std::move(plain)), data_(data), account_(KernelCacheScope::Current()) {
  if (preloaded != nullptr) {
    const auto found = preloaded->find(data_);
    if (found != preloaded->end()) {
      absl::MutexLock lock(&mutex_);
      preloaded_ = found->second;
    }
  }
  Caches& caches = LiveCaches();
  absl::MutexLock lock(&caches.mutex);
  caches.by_weight[data_].push_back(this);
}

PackedWeights::~PackedWeights() {
  {
    absl::MutexLock lock(&mutex_);
    for (const dnnl::memory& packed : packed_)
      account_->WeightDropped(packed.get_desc().get_size());
  }
  Caches& caches = LiveCaches();
  absl::MutexLock lock(&caches.mutex);
  std::vector<PackedWeights*>& same_weight = caches.by_weight[data_];
  same_weight.erase(std::find(same_weight.begin(), same_weight.end(), this));
  if (same_weight.empty()) caches.by_weight.erase(data_);
}

std::vector<PackedCopy> PacksOf(const void* weight_data) {
  std::vector<PackedCopy> copies;
  Caches& caches = LiveCaches();
  absl::MutexLock lock(&caches.mutex);
  const auto found = caches.by_weight.find(weight_data);
  if (found == caches.by_weight.end()) return copies;
  const auto add = [&copies](const PackedCopy& copy) {
    if (std::none_of(copies.begin(), copies.end(), [&](const PackedCopy& known) {
          return SameFormat(known.format, copy.format);
        })) {
      copies.push_back(copy);
    }
  };
  for (PackedWeights* cache : found->second) {
    absl::MutexLock cache_lock(&cache->mutex_);
    for (const dnnl::memory& packed : cache->packed_) {
      const dnnl::memory::desc format = packed.get_desc();
      add({format.data, packed.get_data_handle(), format.get_size()});
    }
    for (const PackedCopy& copy : cache->preloaded_) add(copy);
  }
  return copies;
}

dnnl::memory PackedWeights::Get(const dnnl::memory::desc& format) {
  return *Find(format, std::nullopt);
}

std::optional<dnnl::memory> PackedWeights::GetIfPacked(const dnnl::memory::desc& format) {
  return Find(format, 0);
}

std::optional<dnnl::memory> PackedWeights::GetWithinKindLimit(const dnnl::memory::desc& format,
                                                              size_t max_copies) {
  return Find(format, max_copies);
}

std::optional<dnnl::memory> PackedWeights::Find(const dnnl::memory::desc& format,
                                                std::optional<size_t> max_copies) {
  if (std::optional<dnnl::memory> held = Held(format)) return held;
  if (max_copies && *max_copies == 0) return std::nullopt;
  {
    absl::MutexLock lock(&mutex_);
    if (max_copies && CopiesOfKind(format) >= *max_copies) return std::nullopt;
  }
  // Packed outside the lock: a slow reorder (oneDNN's Winograd layouts take
  // up to 0.2 s per weight) must not hold up the calls that want the
  // weight's other copies.
  dnnl::memory source(plain_, CpuEngine(), data_);
  dnnl::memory packed(format, CpuEngine());
  dnnl::stream stream(CpuEngine());
  dnnl::reorder(source, packed).execute(stream, source, packed);
  stream.wait();
  absl::MutexLock lock(&mutex_);
  // Another thread may have packed it meanwhile (its copy is kept), or
  // another copy of the kind (then this one is dropped, as the limit says).
  for (const dnnl::memory& other : packed_) {
    if (other.get_desc() == format) return other;
  }
  if (max_copies && CopiesOfKind(format) >= *max_copies) return std::nullopt;
  Keep(packed);
  return packed;
}

std::optional<dnnl::memory> PackedWeights::Held(const dnnl::memory::desc& format) {
  absl::MutexLock lock(&mutex_);
  for (const dnnl::memory& packed : packed_) {
    if (packed.get_desc() == format) return packed;
  }
  // A preloaded copy is used only where its format is exactly the one asked
  // for, with that format's size: its own descriptor is never interpreted.
  for (auto copy = preloaded_.begin(); copy != preloaded_.end(); ++copy) {
    if (SameFormat(copy->format, format.data) && copy->bytes == format.get_size()) {
      dnnl::memory packed(format, CpuEngine(), const_cast<void*>(copy->data));
      preloaded_.erase(copy);
      Keep(packed);
      return packed;
    }
  }
  return std::nullopt;
}

void PackedWeights::Keep(const dnnl::memory& packed) {
  packed_.push_back(packed);
  account_->WeightPrepared(packed.get_desc().get_size());
}

size_t PackedWeights::CopiesOfKind(const dnnl::memory::desc& format) const {
  size_t copies = 0;
  for (const dnnl::memory& packed : packed_) {
    copies += packed.get_desc().data.format_kind == format.data.format_kind;
  }
  return copies;
}

}  // namespace onednn
}  // namespace static_runtime
