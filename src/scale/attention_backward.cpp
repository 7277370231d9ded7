// The fused attention core's backward (attention_backward.hpp), FlashAttention-2's way: a task per
// (key block, head) walks the query blocks, recomputes P = 2^(s − lse) from the kept log-sum-exp,
// and adds that block's share to dV, dK (its own rows) and dQ (a copy per worker, summed at the
// end). Letters: n tokens, h heads, d_k per head, bq / bk rows per query / key block.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>

#include "qkv/attention_backward.hpp"
#include "qkv/parallel_for.hpp"
#include "qkv/row_kernels.hpp"
#include "qkv/tile_kernels.hpp"

namespace qkv::attention {

namespace {

using detail::causal_band;
using detail::operand_b;
using detail::tile_gemm;
using detail::tile_gemm_ta;

operand_b rows_of(const float* B, std::size_t ld) { return {B, ld, detail::panel_cols}; }

struct core_plan {
    std::size_t n, ld, h, d_k, bq, bk;
    std::size_t key_blocks() const { return (n + bk - 1) / bk; }
    // rows a cache line more than a multiple of 1 KiB apart, as the forward's K^T blocks: the
    // transposed products read down a column of P and dS, which at 1 KiB would fall in a few of
    // the L1 cache's sets
    std::size_t kb_ld() const { return bk + 16; }
    // per worker: P and dS [bq, kb_ld]; the key block's K^T and V^T [d_k, kb_ld] and K [bk, d_k];
    // the query block's Q and dO [bq, d_k], copied out of the rows d apart
    std::size_t scratch_floats() const { return 2 * bq * kb_ld() + 2 * d_k * kb_ld() + bk * d_k + 2 * bq * d_k; }
};

// 64 query rows keep P and dS (64 KiB each at bk = 256) in L2 beside the key block's K, V, K^T,
// V^T, dK and dV rows; the products Pᵀ·dO and dSᵀ·Q then sum 64 terms per pass over dK and dV.
core_plan plan_core(const core_shape& s) {
    return {s.n, s.ld, s.heads, s.d_k, s.block_q ? s.block_q : 64, s.block_k ? s.block_k : 256};
}

// Rows r0 … r0+rows−1, columns c0 … c0+w−1 of M (row stride ld) into out [rows, w].
void copy_block(const float* M, std::size_t ld, std::size_t r0, std::size_t rows, std::size_t c0, std::size_t w,
                float* out) {
    for (std::size_t i = 0; i < rows; ++i) std::copy_n(M + (r0 + i) * ld + c0, w, out + i * w);
}

// Columns c0 … c0+d_k−1 of rows r0 … r0+rows−1 of M (row stride ld), transposed: [d_k, kb_ld].
void transpose_block(const float* M, std::size_t ld, std::size_t r0, std::size_t rows, std::size_t c0,
                     std::size_t d_k, float* out, std::size_t out_ld) {
    for (std::size_t b0 = 0; b0 < d_k; b0 += 16)  // 16 columns at a time: a cache line of each row
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t c = b0; c < std::min(d_k, b0 + 16); ++c) out[c * out_ld + i] = M[(r0 + i) * ld + c0 + c];
}

// D [h, n]: rowsum(dO ⊙ O) for each head, what a row's weights pass on as a whole.
std::vector<float> row_dots(const core_inputs& in, const core_plan& p) {
    std::vector<float> D(p.h * p.n);
    for (std::size_t j = 0; j < p.h; ++j)
        for (std::size_t i = 0; i < p.n; ++i) {
            const float *o = in.O + i * p.ld + j * p.d_k, *g = in.dO + i * p.ld + j * p.d_k;
            float s = 0;
            for (std::size_t c = 0; c < p.d_k; ++c) s += o[c] * g[c];
            D[j * p.n + i] = s;
        }
    return D;
}

struct alphas {
    float s;  // makes base-2 scores of Q·Kᵀ
    float q;  // dQ = q · dS·K
    float k;  // dK = k · dSᵀ·Q (Q as given)
};

// Row i of P [rows, cols] and dS: P = 2^(s − lse_i) on the keys the row sees, 0 after; then dS =
// P ⊙ (dP − D_i), the softmax's backward, dP arriving in dS.
void softmax_rows_back(float* P, float* dS, std::size_t ld, std::size_t rows, std::size_t cols, std::size_t q0,
                       std::size_t k0, bool causal, const float* lse, const float* D) {
    const detail::row_kernels& rk = detail::active_row_kernels();
    for (std::size_t i = 0; i < rows; ++i) {
        float *p = P + i * ld, *g = dS + i * ld;
        const std::size_t v = causal ? std::min(cols, q0 + i + 1 > k0 ? q0 + i + 1 - k0 : 0) : cols;
        float top;
        if (v > 0) rk.exp2_sum(p, v, lse[i], top);
        for (std::size_t j = 0; j < v; ++j) g[j] = p[j] * (g[j] - D[i]);
        std::fill(p + v, p + cols, 0.0f);
        std::fill(g + v, g + cols, 0.0f);
    }
}

// Key block b of head j against every query block that sees it: dK, dV rows k0 … (this task's
// alone) and dQ_w (this worker's copy).
void key_block_task(const core_plan& p, const core_inputs& in, const float* lse, const float* D, std::size_t j,
                    std::size_t b, bool causal, const alphas& a, float* w, float* dQ_w, float* dK, float* dV) {
    const std::size_t k0 = b * p.bk, cols = std::min(p.bk, p.n - k0), hc = j * p.d_k, kld = p.kb_ld(), d_k = p.d_k;
    float *P = w, *dS = P + p.bq * kld, *Kt = dS + p.bq * kld, *Vt = Kt + d_k * kld, *K = Vt + d_k * kld;
    float *Q = K + p.bk * d_k, *dO = Q + p.bq * d_k;  // [bk, d_k], [bq, d_k], [bq, d_k]
    transpose_block(in.K, p.ld, k0, cols, hc, d_k, Kt, kld);
    transpose_block(in.V, p.ld, k0, cols, hc, d_k, Vt, kld);
    copy_block(in.K, p.ld, k0, cols, hc, d_k, K);
    bool first = true;
    for (std::size_t q0 = causal ? k0 / p.bq * p.bq : 0; q0 < p.n; q0 += p.bq, first = false) {
        const std::size_t rows = std::min(p.bq, p.n - q0);
        const std::ptrdiff_t shift = std::ptrdiff_t(q0) - std::ptrdiff_t(k0);
        const causal_band by_cols = causal ? causal_band{causal_band::columns, shift} : causal_band{};
        copy_block(in.Q, p.ld, q0, rows, hc, d_k, Q);
        copy_block(in.dO, p.ld, q0, rows, hc, d_k, dO);
        tile_gemm(rows, cols, d_k, a.s, Q, d_k, rows_of(Kt, kld), false, P, kld, by_cols);    // S [rows, cols]
        tile_gemm(rows, cols, d_k, 1.0f, dO, d_k, rows_of(Vt, kld), false, dS, kld, by_cols);  // dP = dO·Vᵀ
        softmax_rows_back(P, dS, kld, rows, cols, q0, k0, causal, lse + j * p.n + q0, D + j * p.n + q0);
        // dV[k0 …] (+)= Pᵀ·dO and dK[k0 …] (+)= dSᵀ·Q: [cols, d_k], rows of this head no other task writes
        tile_gemm_ta(cols, d_k, rows, 1.0f, P, kld, rows_of(dO, d_k), !first, dV + k0 * p.ld + hc, p.ld);
        tile_gemm_ta(cols, d_k, rows, a.k, dS, kld, rows_of(Q, d_k), !first, dK + k0 * p.ld + hc, p.ld);
        // dQ[q0 …] += dS·K [rows, d_k]; with the mask row i sums the keys t < i + 1 + shift only
        tile_gemm(rows, d_k, cols, a.q, dS, kld, rows_of(K, d_k), true, dQ_w + q0 * p.ld + hc, p.ld,
                  causal ? causal_band{causal_band::depth, shift} : causal_band{});
    }
}

}  // namespace

namespace {

// Whether each worker can own whole heads: then dQ's columns of a head have one writer and need
// no copies. With fewer heads than two per thread the key blocks are shared out instead.
bool by_heads(const core_plan& p, int threads) { return threads == 1 || p.h >= 2 * std::size_t(threads); }

std::size_t copies_floats(const core_plan& p, int threads) {
    return by_heads(p, threads) ? 0 : (std::size_t(threads) - 1) * p.n * p.ld;
}

}  // namespace

void core_backward(const core_inputs& in, float* dQ, float* dK, float* dV, const core_shape& s) {
    const core_plan p = plan_core(s);
    const int threads = std::max(1, s.threads);
    const std::vector<float> D = row_dots(in, p);
    const float root = std::sqrt(float(p.d_k));
    const alphas a{std::numbers::log2e_v<float> / (root * s.q_scale), 1.0f / root, 1.0f / (root * s.q_scale)};
    const std::size_t size = p.n * p.ld, blocks = p.key_blocks();
    const std::unique_ptr<float[]> copies(new float[copies_floats(p, threads) + threads * p.scratch_floats()]());
    float* scratch = copies.get() + copies_floats(p, threads);
    std::fill_n(dQ, size, 0.0f);
    auto task = [&](std::size_t j, std::size_t b, int worker, float* dQ_w) {
        key_block_task(p, in, in.lse, D.data(), j, b, s.causal, a, scratch + worker * p.scratch_floats(), dQ_w, dK, dV);
    };
    if (by_heads(p, threads)) {
        parallel_for(p.h, threads, [&](std::size_t j, int worker) {
            for (std::size_t b = 0; b < blocks; ++b) task(j, b, worker, dQ);
        });
        return;
    }
    // dQ: worker 0 adds into dQ itself, the others into copies of their own, summed at the end.
    // Key block 0 of every head first: with the mask the early key blocks see the most queries.
    parallel_for(blocks * p.h, threads, [&](std::size_t t, int worker) {
        task(t % p.h, t / p.h, worker, worker == 0 ? dQ : copies.get() + (worker - 1) * size);
    });
    for (int w = 1; w < threads; ++w) {
        const float* c = copies.get() + (w - 1) * size;
        for (std::size_t i = 0; i < size; ++i) dQ[i] += c[i];
    }
}

std::size_t core_extra_floats(const core_shape& s) {
    const core_plan p = plan_core(s);
    const std::size_t threads = std::size_t(std::max(1, s.threads));
    return copies_floats(p, int(threads)) + threads * p.scratch_floats() + p.h * p.n;
}

}  // namespace qkv::attention
