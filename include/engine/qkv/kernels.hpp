// The plain kernels of attention, written as the math reads. matmul_ref is the reference the
// BLAS layer is tested against; the others are the only implementations (they are O(n·d), and
// a loop is both the clearest and fast enough).
#pragma once

#include <cstdint>

#include "qkv/matrix.hpp"

namespace qkv::kernels {

// C = A (m, k) @ B (k, n) -> (m, n), three loops, accumulating in double.
matrix matmul_ref(const matrix& A, const matrix& B);

// A^T: (m, n) -> (n, m).
matrix transpose(const matrix& A);

// Softmax along each row. Subtracts the row maximum first (numerical stability: exp never
// sees a large positive argument). -inf entries become exactly 0; a row of only -inf is NaN.
matrix softmax_rows(const matrix& S);

// The formula without the maximum subtracted: exp(s) / sum exp(s). Overflows to inf / NaN
// for large scores, which is what lesson 5 shows.
matrix softmax_rows_naive(const matrix& S);

// Softmax down each column (a common mistake; the exercises diagnose it).
matrix softmax_cols(const matrix& S);

// Cosine similarity between the rows of A (m, d) and the rows of B (n, d) -> (m, n).
matrix cosine_rows(const matrix& A, const matrix& B);

// [n, n]: 0 on and below the diagonal, -inf above (query i may not see key j > i).
matrix causal_mask(std::size_t n);

// Sum of each row -> (m, 1).
matrix row_sums(const matrix& A);

// Frobenius norm of the softmax Jacobian diag(p) - p p^T for each row p of P -> (m, 1).
// Near 0 when p is one-hot: the gradient through the softmax vanishes.
matrix softmax_jacobian_norm(const matrix& P);

// A (r, c) of independent N(0, 1) samples from a seeded generator: the same seed gives the
// same numbers on every machine (xoshiro256** and Marsaglia's polar method, not
// std::normal_distribution, whose output the standard leaves to the library).
matrix randn(std::size_t r, std::size_t c, std::uint64_t seed);
// Keep the draws of randn and rand_uniform, up to `bytes` of them (none by default; one a quarter
// of it at most), and hand out copies: a server that runs the same lessons again and again draws
// each once.
void keep_draws(std::size_t bytes);

// A (r, c) of independent uniform samples in [0, 1), from the same generator. PyTorch initialises
// nn.MultiheadAttention's weights uniformly (xavier_uniform_), so lessons that imitate it use this.
matrix rand_uniform(std::size_t r, std::size_t c, std::uint64_t seed);
// The same numbers, never kept: for draws made once each, as a training run's batches.
matrix draw_uniform(std::size_t r, std::size_t c, std::uint64_t seed);

}  // namespace qkv::kernels
