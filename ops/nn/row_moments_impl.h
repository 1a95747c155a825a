// ATen's row moments (utils::RowwiseMoments, ATen/native/cpu/moments_utils.h:
// the mean and variance its layer-norm and group-norm kernels compute per
// row), bit for bit, with the independent parts of the work overlapped:
// several rows at once (RowsMoments) or several chunks of one long row at
// once (LongRowMoments). Included once per ISA by a translation unit compiled
// with that ISA's flags and ATen's CPU_CAPABILITY macros, so
// at::vec::Vectorized<float> is that ISA's, and without floating-point
// contraction: every operation is one ATen's does, in ATen's order for each
// row (each multiply, add and divide one IEEE rounding).
//
// ATen's algorithm, on vectors of W lanes: Welford's update over each chunk
// of kChunk vectors (lane by lane, from zero), the chunks' moments merged in
// order by a binary cascade (AddMomentsVec), then on scalars the values past
// the last whole vector (Welford's update) and the cascade's W lanes merged
// into them in lane order (AddMoments). A row's chain of dependent adds and
// multiplies makes the CPU wait on their latency; the chunks' updates are
// independent of each other, and rows of each other.
#ifndef STATIC_RUNTIME_OPS_NN_ROW_MOMENTS_IMPL_H_
#define STATIC_RUNTIME_OPS_NN_ROW_MOMENTS_IMPL_H_

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "ATen/cpu/vec/vec.h"

namespace static_runtime {
namespace ops {
namespace CPU_CAPABILITY {

using Vec = at::vec::Vectorized<float>;

// Vectors per chunk, and the most levels a cascade has (a row of fewer than
// 2^47 floats, any that fits in memory, needs fewer).
constexpr int64_t kChunk = 16;
constexpr int64_t kMaxDepth = 40;

// Registers of moments at once: as many as stay in registers (16 vector
// registers under AVX2, 32 under AVX512).
constexpr int kMaxRegs = Vec::size() == 8 ? 4 : 8;

// utils::CeilLog2, with ATen's 1 for 0, 1 and 2.
inline int64_t CeilLog2(int64_t x) {
  if (x <= 2) return 1;
  int64_t bits = 0;
  for (uint64_t v = static_cast<uint64_t>(x) - 1; v != 0; v >>= 1) ++bits;
  return bits;
}

// Where the vectors of ATen's width sit in registers: Lanes::Reg holds
// Lanes::kPartsPerReg vectors of Lanes::kLanes values each (of as many rows,
// or chunks).
//
// One vector of this ISA per register.
struct RowVectors {
  using Reg = Vec;
  static constexpr int64_t kLanes = Vec::size();
  static constexpr int kPartsPerReg = 1;
  // The vectors at bases[p] + offset.
  static Reg Load(const float* const* bases, int64_t offset) {
    return Vec::loadu(bases[0] + offset);
  }
  static Reg Splat(float value) { return Vec(value); }
  // A register whose first part is `reg`'s part `part`.
  static Reg Part(const Reg& reg, int part) { return reg; }
  // The parts' lanes, one part after another, at `lanes`.
  static void Store(const Reg& reg, float* lanes) { reg.store(lanes); }
};

#if defined(__AVX512F__) && defined(__AVX512DQ__)
// Two AVX2 vectors (8 values each) in one AVX-512 register: ATen's AVX2
// order at twice the values per instruction (in translation units compiled
// for AVX-512 F and DQ).
struct PairedAvx2Vectors {
  struct Reg {
    __m512 v;
  };
  static constexpr int64_t kLanes = 8;
  static constexpr int kPartsPerReg = 2;
  static Reg Load(const float* const* bases, int64_t offset) {
    return {_mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(bases[0] + offset)),
                               _mm256_loadu_ps(bases[1] + offset), 1)};
  }
  static Reg Splat(float value) { return {_mm512_set1_ps(value)}; }
  static Reg Part(const Reg& reg, int part) {
    return part == 0 ? reg : Reg{_mm512_shuffle_f32x4(reg.v, reg.v, 0xEE)};
  }
  static void Store(const Reg& reg, float* lanes) { _mm512_storeu_ps(lanes, reg.v); }
};
inline PairedAvx2Vectors::Reg operator+(PairedAvx2Vectors::Reg a, PairedAvx2Vectors::Reg b) {
  return {_mm512_add_ps(a.v, b.v)};
}
inline PairedAvx2Vectors::Reg operator-(PairedAvx2Vectors::Reg a, PairedAvx2Vectors::Reg b) {
  return {_mm512_sub_ps(a.v, b.v)};
}
inline PairedAvx2Vectors::Reg operator*(PairedAvx2Vectors::Reg a, PairedAvx2Vectors::Reg b) {
  return {_mm512_mul_ps(a.v, b.v)};
}
#endif

// The moments of kRegs registers' vectors: the count of vectors (shared),
// the lanes' means and sums of squared deviations.
template <typename Lanes, int kRegs>
struct VecMoments {
  using Reg = typename Lanes::Reg;
  int64_t count = 0;
  Reg m1[kRegs];
  Reg m2[kRegs];
  void Clear() {
    count = 0;
    for (int g = 0; g < kRegs; ++g) m1[g] = m2[g] = Lanes::Splat(0.f);
  }
  // AddMomentsVec: `other`'s moments merged into these.
  void Add(const VecMoments& other) {
    const int64_t n = count + other.count;
    const float c = n == 0 ? 0.f : static_cast<float>(other.count) / static_cast<float>(n);
    const Reg c_vec = Lanes::Splat(c);
    const Reg count_vec = Lanes::Splat(static_cast<float>(count));
    for (int g = 0; g < kRegs; ++g) {
      const Reg delta = other.m1[g] - m1[g];
      m1[g] = m1[g] + c_vec * delta;
      m2[g] = m2[g] + (other.m2[g] + delta * delta * c_vec * count_vec);
    }
    count = n;
  }
};

// Welford's update over `count` vectors from `offset` past each of the
// kRegs * kPartsPerReg `bases`: the moments of those chunks, in registers.
template <typename Lanes, int kRegs>
VecMoments<Lanes, kRegs> ChunkMoments(const float* const* bases, int64_t offset, int64_t count) {
  using Reg = typename Lanes::Reg;
  Reg m1[kRegs];
  Reg m2[kRegs];
#pragma GCC unroll 8
  for (int g = 0; g < kRegs; ++g) m1[g] = m2[g] = Lanes::Splat(0.f);
  for (int64_t j = 0; j < count; ++j) {
    const Reg factor = Lanes::Splat(1.f / static_cast<float>(j + 1));
#pragma GCC unroll 8
    for (int g = 0; g < kRegs; ++g) {
      const Reg x = Lanes::Load(bases + g * Lanes::kPartsPerReg, offset + j * Lanes::kLanes);
      const Reg delta = x - m1[g];
      m1[g] = m1[g] + delta * factor;
      m2[g] = m2[g] + delta * (x - m1[g]);
    }
  }
  VecMoments<Lanes, kRegs> moments;
  moments.count = count;
#pragma GCC unroll 8
  for (int g = 0; g < kRegs; ++g) {
    moments.m1[g] = m1[g];
    moments.m2[g] = m2[g];
  }
  return moments;
}

// The cascade of one row (kRegs = 1) or of several (a register's parts
// each a row): chunk after chunk merged in, in order.
template <typename Lanes, int kRegs>
class Cascade {
 public:
  explicit Cascade(int64_t chunks) : depth_(CeilLog2(chunks)) {
    for (int64_t level = 0; level < depth_; ++level) levels_[level].Clear();
  }
  // The moments of chunk `index` (chunks come in order from 0).
  void Add(const VecMoments<Lanes, kRegs>& moments, int64_t index) {
    levels_[0].Add(moments);
    int64_t mask = index + 1;
    for (int64_t level = 1; level < depth_ && (mask & 1) == 0; ++level) {
      levels_[level].Add(levels_[level - 1]);
      levels_[level - 1].Clear();
      mask >>= 1;
    }
  }
  // The merged moments, once every chunk is in.
  const VecMoments<Lanes, kRegs>& Result() {
    for (int64_t level = 1; level < depth_; ++level) levels_[0].Add(levels_[level]);
    return levels_[0];
  }

 private:
  int64_t depth_;
  VecMoments<Lanes, kRegs> levels_[kMaxDepth];
};

// The scalar end of RowwiseMoments for kRows rows side by side: the values
// past the first `vectors` whole vectors of each row, then each row's lanes
// (kLanes from row_m1 + r * kLanes, and from row_m2) merged in lane order;
// each row's mean and variance (ddof 0). The rows side by side (lane-major
// arrays), where the compiler may run them in vectors.
template <int kRows, int64_t kLanes>
void MergeLanes(const float* row_m1, const float* row_m2, const float* const* rows, int64_t vectors,
                int64_t n, float* mean, float* variance) {
  float lane_m1[kLanes][kRows];
  float lane_m2[kLanes][kRows];
  for (int r = 0; r < kRows; ++r) {
    for (int64_t lane = 0; lane < kLanes; ++lane) {
      lane_m1[lane][r] = row_m1[r * kLanes + lane];
      lane_m2[lane][r] = row_m2[r * kLanes + lane];
    }
  }
  float m1[kRows];
  float m2[kRows];
  for (int r = 0; r < kRows; ++r) m1[r] = m2[r] = 0.f;
  int64_t count = 0;
  for (int64_t i = vectors * kLanes; i < n; ++i) {
    ++count;
    const float count_f = static_cast<float>(count);
    for (int r = 0; r < kRows; ++r) {
      const float x = rows[r][i];
      const float delta = x - m1[r];
      m1[r] += delta / count_f;
      m2[r] += delta * (x - m1[r]);
    }
  }
  for (int64_t lane = 0; lane < kLanes; ++lane) {
    const int64_t total = count + vectors;
    const float c = total == 0 ? 0.f : static_cast<float>(vectors) / static_cast<float>(total);
    const float count_f = static_cast<float>(count);
    for (int r = 0; r < kRows; ++r) {
      const float delta = lane_m1[lane][r] - m1[r];
      m1[r] += c * delta;
      m2[r] += lane_m2[lane][r] + delta * delta * c * count_f;
    }
    count = total;
  }
  for (int r = 0; r < kRows; ++r) {
    mean[r] = m1[r];
    variance[r] = m2[r] / static_cast<float>(n);
  }
}

// RowwiseMoments of kRegs * Lanes::kPartsPerReg `rows` of n values, the rows
// side by side: each row's mean and variance.
template <typename Lanes, int kRegs>
void RowsMoments(const float* const* rows, int64_t n, float* mean, float* variance) {
  constexpr int64_t kLanes = Lanes::kLanes;
  constexpr int kRows = kRegs * Lanes::kPartsPerReg;
  const int64_t vectors = n / kLanes;
  const int64_t chunks = (vectors + kChunk - 1) / kChunk;
  Cascade<Lanes, kRegs> cascade(chunks);
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    const int64_t count = std::min(kChunk, vectors - chunk * kChunk);
    cascade.Add(ChunkMoments<Lanes, kRegs>(rows, chunk * kChunk * kLanes, count), chunk);
  }
  const VecMoments<Lanes, kRegs>& merged = cascade.Result();
  float row_m1[kRows][kLanes];
  float row_m2[kRows][kLanes];
  for (int g = 0; g < kRegs; ++g) {
    Lanes::Store(merged.m1[g], row_m1[g * Lanes::kPartsPerReg]);
    Lanes::Store(merged.m2[g], row_m2[g * Lanes::kPartsPerReg]);
  }
  MergeLanes<kRows, kLanes>(row_m1[0], row_m2[0], rows, vectors, n, mean, variance);
}

// RowwiseMoments of one row of n values, kRegs * Lanes::kPartsPerReg of its
// chunks side by side: its mean and variance.
template <typename Lanes, int kRegs>
void LongRowMoments(const float* row, int64_t n, float* mean, float* variance) {
  using Single = VecMoments<Lanes, 1>;
  constexpr int64_t kLanes = Lanes::kLanes;
  constexpr int kParts = Lanes::kPartsPerReg;
  constexpr int kChunksAtOnce = kRegs * kParts;
  constexpr int64_t kChunkValues = kChunk * kLanes;
  const int64_t vectors = n / kLanes;
  const int64_t chunks = (vectors + kChunk - 1) / kChunk;
  const int64_t whole_chunks = vectors / kChunk;
  Cascade<Lanes, 1> cascade(chunks);
  int64_t chunk = 0;
  for (; chunk + kChunksAtOnce <= whole_chunks; chunk += kChunksAtOnce) {
    const float* bases[kChunksAtOnce];
    for (int i = 0; i < kChunksAtOnce; ++i) bases[i] = row + (chunk + i) * kChunkValues;
    const VecMoments<Lanes, kRegs> moments = ChunkMoments<Lanes, kRegs>(bases, 0, kChunk);
    for (int g = 0; g < kRegs; ++g) {
      for (int part = 0; part < kParts; ++part) {
        Single one;
        one.count = kChunk;
        one.m1[0] = Lanes::Part(moments.m1[g], part);
        one.m2[0] = Lanes::Part(moments.m2[g], part);
        cascade.Add(one, chunk + g * kParts + part);
      }
    }
  }
  // The rest one chunk at a time (a register's other parts repeat it).
  for (; chunk < chunks; ++chunk) {
    const float* bases[kParts];
    for (int part = 0; part < kParts; ++part) bases[part] = row + chunk * kChunkValues;
    cascade.Add(ChunkMoments<Lanes, 1>(bases, 0, std::min(kChunk, vectors - chunk * kChunk)),
                chunk);
  }
  const Single& merged = cascade.Result();
  // The register's first part is the row's.
  float parts_m1[kParts][kLanes];
  float parts_m2[kParts][kLanes];
  Lanes::Store(merged.m1[0], parts_m1[0]);
  Lanes::Store(merged.m2[0], parts_m2[0]);
  const float* rows[1] = {row};
  MergeLanes<1, kLanes>(parts_m1[0], parts_m2[0], rows, vectors, n, mean, variance);
}

}  // namespace CPU_CAPABILITY
}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_NN_ROW_MOMENTS_IMPL_H_
