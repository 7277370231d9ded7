// The fused backward's gradients of X and the weights (attention_backward.hpp): the projections'
// products on the tile kernels, rows of each result spread over the threads, around the fused
// core (attention_backward.cpp). Letters: n tokens, d = d_model, h heads, d_k = d / h.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <stdexcept>

#include <fmt/format.h>

#include "qkv/attention_backward.hpp"
#include "qkv/kernels.hpp"
#include "qkv/parallel_for.hpp"
#include "qkv/tile_kernels.hpp"

namespace qkv::attention {

namespace {

// B (k, n; row stride ldb) packed into panels at Bp, a panel per task.
detail::operand_b pack(std::size_t k, std::size_t n, const float* B, std::size_t ldb, float* Bp, int threads) {
    const std::size_t panels = (n + detail::panel_cols - 1) / detail::panel_cols;
    parallel_for(panels, threads, [&](std::size_t j, int) {
        const std::size_t j0 = j * detail::panel_cols;
        detail::pack_panels(k, std::min(detail::panel_cols, n - j0), B + j0, ldb, Bp + j0 * k);
    });
    return {Bp, detail::panel_cols, k * detail::panel_cols};
}

// C (m, n) (+)= A (m, k)·B (k, n), every row stride the matrix's own width. Bands of rows of C on
// the threads. (Aᵀ is made first where a gradient needs it: read in place down its columns, rows
// of X or O 2 KiB apart fall in a few of the L1 cache's sets.)
void product(std::size_t m, std::size_t n, std::size_t k, const float* A, const float* B, float* Bp, bool accumulate,
             float* C, int threads) {
    const detail::operand_b Bo = pack(k, n, B, n, Bp, threads);
    const std::size_t band = std::max<std::size_t>(6, (m / (4 * std::size_t(threads)) + 5) / 6 * 6);
    parallel_for((m + band - 1) / band, threads, [&](std::size_t t, int) {
        const std::size_t r0 = t * band, rows = std::min(band, m - r0);
        detail::tile_gemm(rows, n, k, 1.0f, A + r0 * k, k, Bo, accumulate, C + r0 * n, n);
    });
}

void check_backward_shapes(const matrix& X, const weights& W, const saved_forward& s, const matrix& dZ,
                           const options& o) {
    check_shapes(X, W, o);
    const std::size_t n = X.rows, d = X.cols;
    if (dZ.rows != n || dZ.cols != d)
        throw std::invalid_argument(fmt::format("attention backward: dZ is {}, X is {}", shape_str(dZ), shape_str(X)));
    for (const matrix* m : {&s.Q, &s.K, &s.V, &s.O})
        if (m->rows != n || m->cols != d || s.lse.size() != o.heads * n)
            throw std::invalid_argument("attention backward: what the forward kept is not of X's shape");
}

core_shape core_of(std::size_t n, std::size_t d, const options& o) {
    const std::size_t d_k = d / o.heads;
    return {n, d, o.heads, d_k, o.causal, std::numbers::log2e_v<float> / std::sqrt(float(d_k)), o.threads,
            o.block_q, o.block_k};
}

}  // namespace

gradients backward_fused(const matrix& X, const weights& W, const saved_forward& kept, const matrix& dZ,
                         const options& o) {
    check_backward_shapes(X, W, kept, dZ, o);
    const std::size_t n = X.rows, d = X.cols;
    const int threads = std::max(1, o.threads);
    const std::unique_ptr<float[]> Bp(new float[detail::packed_floats(std::max(n, d), d)]);
    gradients g{matrix(n, d), matrix(d, d), matrix(d, d), matrix(d, d), matrix(d, d)};
    matrix dO(n, d), dQ(n, d), dK(n, d), dV(n, d);  // each [n, d], heads side by side
    product(n, d, d, dZ.data.data(), kernels::transpose(W.W_O).data.data(), Bp.get(), false, dO.data.data(),
            threads);  // dO = dZ·W_Oᵀ
    product(d, d, n, kernels::transpose(kept.O).data.data(), dZ.data.data(), Bp.get(), false, g.dW_O.data.data(),
            threads);
    core_backward({kept.Q.data.data(), kept.K.data.data(), kept.V.data.data(), kept.O.data.data(), dO.data.data(),
                   kept.lse.data()},
                  dQ.data.data(), dK.data.data(), dV.data.data(), core_of(n, d, o));
    // dW = Xᵀ·dQ (dK, dV), and dX = Σ dQ·W_Qᵀ (…): X feeds all three projections
    const matrix Xt = kernels::transpose(X);  // [d, n]
    bool accumulate = false;
    for (auto [dP, W_P, dW] : {std::tuple{&dQ, &W.W_Q, &g.dW_Q}, {&dK, &W.W_K, &g.dW_K}, {&dV, &W.W_V, &g.dW_V}}) {
        product(d, d, n, Xt.data.data(), dP->data.data(), Bp.get(), false, dW->data.data(), threads);
        product(n, d, d, dP->data.data(), kernels::transpose(*W_P).data.data(), Bp.get(), accumulate, g.dX.data.data(),
                threads);
        accumulate = true;
    }
    return g;
}

std::size_t backward_extra_floats(std::size_t n, std::size_t d, const options& o) {
    // dO, dQ, dK, dV; the packed operand; Xᵀ (or Oᵀ) and a transposed weight; the core's own
    return 5 * n * d + detail::packed_floats(std::max(n, d), d) + d * d + core_extra_floats(core_of(n, d, o));
}

}  // namespace qkv::attention
