#include "ops/linalg/batched_gemm.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ops/core/direct_call.h"
#include "ops/linalg/fma_chain_matmul.h"

namespace static_runtime {
namespace {

template <typename T>
using Gemm = void (*)(const char* transa, const char* transb, const int* m, const int* n,
                      const int* k, const T* alpha, const T* a, const int* lda, const T* b,
                      const int* ldb, const T* beta, T* c, const int* ldc);

// The BLAS LibTorch calls (Fortran names), looked up in the process once.
template <typename T>
Gemm<T> BlasGemm() {
  static const Gemm<T> gemm = reinterpret_cast<Gemm<T>>(
      dlsym(RTLD_DEFAULT, std::is_same_v<T, float> ? "sgemm_" : "dgemm_"));
  return gemm;
}

bool Fits(int64_t value) { return value <= INT_MAX; }

// The longest product ops::FmaChainMatmul stands in for sgemm: OpenBLAS's
// kernels split longer ones (on this project's machines from k = 32 on).
constexpr int kMaxChainInner = 31;

// Whether sgemm(transa, transb, m, n, k) gives the bits of ops::FmaChainMatmul
// on sample operands (BLAS's column-major terms): random values in
// [-1, 1), and a row of A (or, with one row, a column of B) of -0, whose
// products cancel to +0 in the chain. With `accumulate`, sgemm's beta is 1
// on a C of random values and -0s, and the chain's result is added to C.
bool SgemmIsTheChain(char transa, char transb, int m, int n, int k, bool accumulate) {
  const Gemm<float> gemm = BlasGemm<float>();
  std::vector<float> a(static_cast<size_t>(m) * k), b(static_cast<size_t>(k) * n);
  uint32_t state = 12345;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / static_cast<float>(1 << 23) - 1.0f;
  };
  for (float& value : a) value = next();
  for (float& value : b) value = next();
  // Element (i, p) of op(A) and (p, j) of op(B) in the column-major arrays.
  const ops::StridedMatrix op_a =
      transa == 'n' ? ops::StridedMatrix{a.data(), 1, m} : ops::StridedMatrix{a.data(), k, 1};
  const ops::StridedMatrix op_b =
      transb == 'n' ? ops::StridedMatrix{b.data(), 1, k} : ops::StridedMatrix{b.data(), n, 1};
  if (m > 1) {
    for (int p = 0; p < k; ++p) a[p * op_a.col_stride] = -0.0f;
  } else {
    for (int p = 0; p < k; ++p) b[p * op_b.row_stride] = -0.0f;
  }
  const int lda = transa == 'n' ? m : k, ldb = transb == 'n' ? k : n;
  const float alpha = 1, beta = accumulate ? 1 : 0;
  std::vector<float> blas(static_cast<size_t>(m) * n), chain(blas.size());
  if (accumulate) {
    for (size_t i = 0; i < blas.size(); ++i) blas[i] = i % 3 == 0 ? -0.0f : next();
  }
  const std::vector<float> initial = blas;
  gemm(&transa, &transb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, blas.data(),
       &m);
  ops::FmaChainMatmul(op_a, op_b, m, k, n, chain.data());
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float expected = chain[i * n + j];
      if (accumulate) expected = initial[i + j * m] + expected;
      if (std::memcmp(&blas[i + j * m], &expected, sizeof(float)) != 0) return false;
    }
  }
  return true;
}

// SgemmIsTheChain, asked once per thread and shape.
bool ChainStandsInForSgemm(char transa, char transb, int m, int n, int k, bool accumulate) {
  if (k > kMaxChainInner || !ops::FmaChainMatmulAvailable()) return false;
  thread_local absl::flat_hash_map<std::array<int, 6>, bool> checked;
  const auto [entry, inserted] = checked.try_emplace({transa, transb, m, n, k, accumulate}, false);
  if (inserted) entry->second = SgemmIsTheChain(transa, transb, m, n, k, accumulate);
  return entry->second;
}

// Each batch's product by ops::FmaChainMatmul (row-major, from the tensors),
// added to `out`'s values with `accumulate`.
void RunChain(const at::Tensor& batch1, const at::Tensor& batch2, bool accumulate,
              at::Tensor& out) {
  const float* a = batch1.data_ptr<float>();
  const float* b = batch2.data_ptr<float>();
  float* c = out.data_ptr<float>();
  const int64_t rows = out.size(1), cols = out.size(2), inner = batch1.size(2);
  thread_local std::vector<float> product;
  if (accumulate) product.resize(static_cast<size_t>(rows * cols));
  for (int64_t i = 0, batches = out.size(0); i < batches; ++i) {
    float* result = c + i * out.stride(0);
    ops::FmaChainMatmul({a + i * batch1.stride(0), batch1.stride(1), batch1.stride(2)},
                        {b + i * batch2.stride(0), batch2.stride(1), batch2.stride(2)}, rows, inner,
                        cols, accumulate ? product.data() : result);
    if (accumulate) {
      for (int64_t j = 0; j < rows * cols; ++j) result[j] += product[static_cast<size_t>(j)];
    }
  }
}

template <typename T>
void Run(const BmmPlan& plan, const at::Tensor& batch1, const at::Tensor& batch2, at::Tensor& out) {
  const at::Tensor& a = plan.swap_operands ? batch2 : batch1;
  const at::Tensor& b = plan.swap_operands ? batch1 : batch2;
  const T* a_data = a.data_ptr<T>();
  const T* b_data = b.data_ptr<T>();
  T* c_data = out.data_ptr<T>();
  const int64_t a_step = a.stride(0), b_step = b.stride(0), c_step = out.stride(0);
  const T alpha = 1, beta = plan.accumulate ? 1 : 0;
  const Gemm<T> gemm = BlasGemm<T>();
  for (int64_t i = 0, batches = out.size(0); i < batches; ++i) {
    gemm(&plan.transpose_a, &plan.transpose_b, &plan.m, &plan.n, &plan.k, &alpha,
         a_data + i * a_step, &plan.lda, b_data + i * b_step, &plan.ldb, &beta, c_data + i * c_step,
         &plan.ldc);
  }
}

}  // namespace

std::optional<BmmPlan> PlanBmm(const at::Tensor& batch1, const at::Tensor& batch2,
                               bool accumulate) {
  if (!PlainCpuTensor(batch1) || !PlainCpuTensor(batch2) || batch1.dim() != 3 ||
      batch2.dim() != 3 || batch1.scalar_type() != batch2.scalar_type() ||
      (batch1.scalar_type() != at::kFloat && batch1.scalar_type() != at::kDouble) ||
      batch1.size(0) != batch2.size(0) || batch1.size(2) != batch2.size(1)) {
    return std::nullopt;
  }
  const bool is_float = batch1.scalar_type() == at::kFloat;
  if (is_float ? BlasGemm<float>() == nullptr : BlasGemm<double>() == nullptr) return std::nullopt;
  const int64_t rows = batch1.size(1), cols = batch2.size(2), inner = batch1.size(2);
  if (batch1.size(0) == 0 || rows == 0 || cols == 0 || inner == 0 || inner * rows * cols < 400) {
    return std::nullopt;
  }
  // ATen's addmm on one batch matrix: result [rows, cols] contiguous.
  const int64_t result_sizes[2] = {rows, cols};
  const int64_t result_strides[2] = {cols, 1};
  at::IntArrayRef m1_sizes = batch1.sizes().slice(1), m1_strides = batch1.strides().slice(1);
  at::IntArrayRef m2_sizes = batch2.sizes().slice(1), m2_strides = batch2.strides().slice(1);
  BmmPlan plan;
  bool transpose_c;
  if (result_strides[0] == 1 &&
      (result_sizes[1] == 1 || result_strides[1] >= std::max<int64_t>(1, result_sizes[0]))) {
    transpose_c = false;
  } else {  // contiguous rows: always true here
    std::swap(m1_sizes, m2_sizes);
    std::swap(m1_strides, m2_strides);
    transpose_c = true;
  }
  plan.swap_operands = transpose_c;
  plan.accumulate = accumulate;
  const int64_t m = result_sizes[transpose_c ? 1 : 0];
  const int64_t n = result_sizes[transpose_c ? 0 : 1];
  const int64_t k = m1_sizes[transpose_c ? 0 : 1];
  // Whether gemm takes an operand with `strides` as it is (false) or
  // transposed (true): the first layout it fits, needing leading dimensions
  // of at least `plain` and `transposed`; nullopt when ATen copies it first.
  auto operand_transposed = [&](at::IntArrayRef strides, int64_t plain,
                                int64_t transposed) -> std::optional<bool> {
    if (strides[transpose_c ? 1 : 0] == 1 &&
        strides[transpose_c ? 0 : 1] >= std::max<int64_t>(1, plain)) {
      return false;
    }
    if (strides[transpose_c ? 0 : 1] == 1 &&
        strides[transpose_c ? 1 : 0] >= std::max<int64_t>(1, transposed)) {
      return true;
    }
    return std::nullopt;
  };
  const std::optional<bool> a_transposed = operand_transposed(m1_strides, m, k);
  const std::optional<bool> b_transposed = operand_transposed(m2_strides, k, n);
  if (!a_transposed || !b_transposed) return std::nullopt;
  const bool transpose_a = *a_transposed, transpose_b = *b_transposed;
  int64_t lda = m1_strides[(transpose_a == transpose_c) ? 1 : 0];
  int64_t ldb = m2_strides[(transpose_b == transpose_c) ? 1 : 0];
  int64_t ldc = result_strides[transpose_c ? 0 : 1];
  // cpublas::gemm's normalization of degenerate dimensions.
  if (n == 1) ldc = m;
  if (transpose_a) {
    if (m == 1) lda = k;
  } else if (k == 1) {
    lda = m;
  }
  if (transpose_b) {
    if (k == 1) ldb = n;
  } else if (n == 1) {
    ldb = k;
  }
  // Where cpublas::gemm calls BLAS (else it runs its own kernel).
  if (!Fits(m) || !Fits(n) || !Fits(k) || !Fits(lda) || !Fits(ldb) || !Fits(ldc) ||
      lda < std::max<int64_t>(1, transpose_a ? k : m) ||
      ldb < std::max<int64_t>(1, transpose_b ? n : k) || ldc < std::max<int64_t>(1, m)) {
    return std::nullopt;
  }
  plan.transpose_a = transpose_a ? 't' : 'n';
  plan.transpose_b = transpose_b ? 't' : 'n';
  plan.m = static_cast<int>(m);
  plan.n = static_cast<int>(n);
  plan.k = static_cast<int>(k);
  plan.lda = static_cast<int>(lda);
  plan.ldb = static_cast<int>(ldb);
  plan.ldc = static_cast<int>(ldc);
  plan.fma_chain = is_float && ChainStandsInForSgemm(plan.transpose_a, plan.transpose_b, plan.m,
                                                     plan.n, plan.k, accumulate);
  return plan;
}

void BmmInto(const BmmPlan& plan, const at::Tensor& batch1, const at::Tensor& batch2,
             at::Tensor& out) {
  if (plan.fma_chain) {
    RunChain(batch1, batch2, plan.accumulate, out);
  } else if (out.scalar_type() == at::kFloat) {
    Run<float>(plan, batch1, batch2, out);
  } else {
    Run<double>(plan, batch1, batch2, out);
  }
}

}  // namespace static_runtime
