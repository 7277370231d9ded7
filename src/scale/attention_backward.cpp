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
#include "stage_clock.hpp"

namespace qkv::attention {

namespace {

using detail::causal_band;
using detail::operand_b;
using detail::rows_of;
using detail::tile_gemm;
using detail::tile_gemm_ta;

struct core_plan {
    std::size_t n, ld, h, d_k, bq, bk;
    std::size_t key_blocks() const { return (n + bk - 1) / bk; }
    // rows a cache line more than a multiple of 1 KiB apart, as the forward's K^T blocks: the
    // transposed products read down a column of P and dS, which at 1 KiB would fall in a few of
    // the L1 cache's sets
    std::size_t kb_ld() const { return bk + 16; }
    // per worker: P and dS [bq, kb_ld]; the key block's K^T and V^T [d_k, kb_ld], K [bk, d_k] and
    // its dK and dV [bk, d_k]; the query block's Q and dO [bq, d_k] when they are not packed
    std::size_t scratch_floats() const { return 2 * bq * kb_ld() + 2 * d_k * kb_ld() + 3 * bk * d_k + 2 * bq * d_k; }
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

// Row i of a block the causal mask cuts, P [rows, cols] and dS: P = 2^(s − lse_i) on the keys the
// row sees, 0 after; then dS = P ⊙ (dP − D_i), the softmax's backward, dP arriving in dS.
void softmax_rows_back(float* P, float* dS, std::size_t ld, std::size_t rows, std::size_t cols, std::size_t q0,
                       std::size_t k0, const float* lse, const float* D) {
    const detail::row_kernels& rk = detail::active_row_kernels();
    for (std::size_t i = 0; i < rows; ++i) {
        float* p = P + i * ld;
        const std::size_t v = std::min(cols, q0 + i + 1 > k0 ? q0 + i + 1 - k0 : 0);
        float top;
        if (v > 0) rk.exp2_sum(p, v, lse[i], top);
        std::fill(p + v, p + cols, 0.0f);
        float* g = dS + i * ld;
        for (std::size_t j = 0; j < v; ++j) g[j] = p[j] * (g[j] - D[i]);
        std::fill(g + v, g + cols, 0.0f);
    }
}

// What every task of one backward reads: the plan, the inputs, D and the scales; and where the
// key blocks' dK and dV rows go.
struct core_task {
    const core_plan& p;
    const core_inputs& in;
    const float* D;
    bool causal;
    alphas a;
    float *dK, *dV;
};

// Head j's Q, dO and dQ (this worker's to add to) as its tasks read them: row i at i·ld.
struct head_rows {
    const float *Q, *dO;
    float* dQ;
    std::size_t ld;
};

// Rows q0 … q0+rows−1 of h's Q and dO as the products read them, [rows, d_k] each, d_k floats a
// row: in place when h holds them packed, else copied out of the rows d apart into Qc and dOc.
void query_rows(const head_rows& h, std::size_t q0, std::size_t rows, std::size_t d_k, float* Qc, float* dOc,
                const float*& Q, const float*& dO) {
    Q = h.Q + q0 * h.ld, dO = h.dO + q0 * h.ld;
    if (h.ld == d_k) return;
    copy_block(h.Q, h.ld, q0, rows, 0, d_k, Qc);
    copy_block(h.dO, h.ld, q0, rows, 0, d_k, dOc);
    Q = Qc, dO = dOc;
}

// Query rows q0 … q0+rows−1 against keys k0 … k0+cols−1.
struct block_span {
    std::size_t q0, rows, k0, cols;
};

// P = 2^(s − lse) and dS = P ⊙ (dP − D), [rows, cols] each (rows kb_ld apart), of head j's query
// rows and keys in b, from Q and dO [rows, d_k] and the key block's Kᵀ and Vᵀ [d_k, kb_ld]; timed
// into st from t.
void softmax_back_block(const core_task& c, std::size_t j, const block_span& b, const float* Q, const float* dO,
                        const float* Kt, const float* Vt, float* P, float* dS, backward_breakdown* st,
                        detail::thread_clock::time_point& t) {
    const core_plan& p = c.p;
    const std::size_t kld = p.kb_ld(), d_k = p.d_k;
    const float *lse = c.in.lse + j * p.n + b.q0, *D = c.D + j * p.n + b.q0;
    if (!c.causal || b.k0 + b.cols <= b.q0 + 1) {
        // every row sees every key of the block: P and dS are finished in the registers of the
        // products that make s and dP
        detail::tile_gemm_exp2(b.rows, b.cols, d_k, c.a.s, Q, d_k, rows_of(Kt, kld), lse, P, kld);
        detail::lap(st, t, &backward_breakdown::scores);
        detail::tile_gemm_times(b.rows, b.cols, d_k, dO, d_k, rows_of(Vt, kld), D, P, kld, dS, kld);
        detail::lap(st, t, &backward_breakdown::dP);
        return;
    }
    const causal_band by_cols{causal_band::columns, std::ptrdiff_t(b.q0) - std::ptrdiff_t(b.k0)};
    tile_gemm(b.rows, b.cols, d_k, c.a.s, Q, d_k, rows_of(Kt, kld), false, P, kld, by_cols);  // S [rows, cols]
    detail::lap(st, t, &backward_breakdown::scores);
    tile_gemm(b.rows, b.cols, d_k, 1.0f, dO, d_k, rows_of(Vt, kld), false, dS, kld, by_cols);  // dP = dO·Vᵀ
    detail::lap(st, t, &backward_breakdown::dP);
    softmax_rows_back(P, dS, kld, b.rows, b.cols, b.q0, b.k0, lse, D);
    detail::lap(st, t, &backward_breakdown::exps);
}

// Key block b of head j against every query block that sees it: dK, dV rows k0 … (this task's
// alone) and h.dQ. st: this worker's stage times, or null.
void key_block_task(const core_task& c, std::size_t j, std::size_t b, float* w, const head_rows& h,
                    backward_breakdown* st) {
    const core_plan& p = c.p;
    const std::size_t k0 = b * p.bk, cols = std::min(p.bk, p.n - k0), hc = j * p.d_k, kld = p.kb_ld(), d_k = p.d_k;
    float *P = w, *dS = P + p.bq * kld, *Kt = dS + p.bq * kld, *Vt = Kt + d_k * kld, *K = Vt + d_k * kld;
    // dK and dV of the key block summed here, d_k floats a row, and written out once at the end:
    // summed in place, rows d apart read and written again at every query block, they were slower
    // than the other n × n products
    float *dKb = K + p.bk * d_k, *dVb = dKb + p.bk * d_k;  // [bk, d_k] each
    float *Qc = dVb + p.bk * d_k, *dOc = Qc + p.bq * d_k;   // [bq, d_k] each
    auto t = detail::start(st);
    detail::transpose(cols, d_k, c.in.K + k0 * p.ld + hc, p.ld, Kt, kld);  // [d_k, kb_ld]
    detail::transpose(cols, d_k, c.in.V + k0 * p.ld + hc, p.ld, Vt, kld);
    copy_block(c.in.K, p.ld, k0, cols, hc, d_k, K);
    detail::lap(st, t, &backward_breakdown::copies);
    bool first = true;
    for (std::size_t q0 = c.causal ? k0 / p.bq * p.bq : 0; q0 < p.n; q0 += p.bq, first = false) {
        const std::size_t rows = std::min(p.bq, p.n - q0);
        const std::ptrdiff_t shift = std::ptrdiff_t(q0) - std::ptrdiff_t(k0);
        const float *Q, *dO;  // [rows, d_k] each
        query_rows(h, q0, rows, d_k, Qc, dOc, Q, dO);
        detail::lap(st, t, &backward_breakdown::copies);
        softmax_back_block(c, j, {q0, rows, k0, cols}, Q, dO, Kt, Vt, P, dS, st, t);
        // dV (+)= Pᵀ·dO and dK (+)= dSᵀ·Q: [cols, d_k]
        tile_gemm_ta(cols, d_k, rows, 1.0f, P, kld, rows_of(dO, d_k), !first, dVb, d_k);
        detail::lap(st, t, &backward_breakdown::dV);
        tile_gemm_ta(cols, d_k, rows, c.a.k, dS, kld, rows_of(Q, d_k), !first, dKb, d_k);
        detail::lap(st, t, &backward_breakdown::dK);
        // dQ[q0 …] += dS·K [rows, d_k]; with the mask row i sums the keys t < i + 1 + shift only
        tile_gemm(rows, d_k, cols, c.a.q, dS, kld, rows_of(K, d_k), true, h.dQ + q0 * h.ld, h.ld,
                  c.causal ? causal_band{causal_band::depth, shift} : causal_band{});
        detail::lap(st, t, &backward_breakdown::dQ);
    }
    // rows k0 … of this head: no other task writes them
    for (std::size_t i = 0; i < cols; ++i) {
        std::copy_n(dKb + i * d_k, d_k, c.dK + (k0 + i) * p.ld + hc);
        std::copy_n(dVb + i * d_k, d_k, c.dV + (k0 + i) * p.ld + hc);
    }
    detail::lap(st, t, &backward_breakdown::copies);
}

}  // namespace

namespace {

// Whether each worker can own whole heads: then dQ's columns of a head have one writer and need
// no copies. With fewer heads than two per thread the key blocks are shared out instead.
bool by_heads(const core_plan& p, int threads) { return threads == 1 || p.h >= 2 * std::size_t(threads); }

// By heads: each worker's head's Q, dO and dQ [n, d_k], packed once per head (copied a block at
// a time out of rows d apart for every key block, and dQ added to in place there, they had cost
// more the longer n: every key block walks all n rows of the head). Else: a copy of dQ for each
// worker but the first.
std::size_t copies_floats(const core_plan& p, int threads) {
    return by_heads(p, threads) ? std::size_t(threads) * 3 * p.n * p.d_k : (std::size_t(threads) - 1) * p.n * p.ld;
}

// Every key block of head j, its Q and dO copied into H [3, n, d_k] and its dQ summed there.
void head_task(const core_task& c, std::size_t j, float* H, float* w, float* dQ, backward_breakdown* st) {
    const core_plan& p = c.p;
    const std::size_t hc = j * p.d_k, nd = p.n * p.d_k;
    auto t = detail::start(st);
    copy_block(c.in.Q, p.ld, 0, p.n, hc, p.d_k, H);
    copy_block(c.in.dO, p.ld, 0, p.n, hc, p.d_k, H + nd);
    std::fill_n(H + 2 * nd, nd, 0.0f);
    detail::lap(st, t, &backward_breakdown::copies);
    for (std::size_t b = 0; b < p.key_blocks(); ++b) key_block_task(c, j, b, w, {H, H + nd, H + 2 * nd, p.d_k}, st);
    t = detail::start(st);
    for (std::size_t i = 0; i < p.n; ++i) std::copy_n(H + 2 * nd + i * p.d_k, p.d_k, dQ + i * p.ld + hc);
    detail::lap(st, t, &backward_breakdown::copies);
}

}  // namespace

void core_backward(const core_inputs& in, float* dQ, float* dK, float* dV, const core_shape& s) {
    const core_plan p = plan_core(s);
    const int threads = std::max(1, s.threads);
    std::vector<backward_breakdown> times(s.times ? threads : 0);  // each worker's stages
    auto st = [&](int worker) { return s.times ? &times[worker] : nullptr; };
    auto t = detail::start(st(0));
    const std::vector<float> D = row_dots(in, p);
    detail::lap(st(0), t, &backward_breakdown::row_dots);
    const float root = std::sqrt(float(p.d_k));
    const core_task c{p, in, D.data(), s.causal,
                      {std::numbers::log2e_v<float> / (root * s.q_scale), 1.0f / root, 1.0f / (root * s.q_scale)}, dK, dV};
    const std::size_t size = p.n * p.ld, blocks = p.key_blocks();
    const std::unique_ptr<float[]> copies(new float[copies_floats(p, threads) + threads * p.scratch_floats()]());
    float* scratch = copies.get() + copies_floats(p, threads);
    if (by_heads(p, threads)) {
        parallel_for(p.h, threads, [&](std::size_t j, int worker) {
            float* H = copies.get() + worker * 3 * p.n * p.d_k;
            head_task(c, j, H, scratch + worker * p.scratch_floats(), dQ, st(worker));
        });
    } else {
        std::fill_n(dQ, size, 0.0f);
        // dQ: worker 0 adds into dQ itself, the others into copies of their own, summed at the end.
        // Key block 0 of every head first: with the mask the early key blocks see the most queries.
        parallel_for(blocks * p.h, threads, [&](std::size_t i, int worker) {
            const std::size_t j = i % p.h, hc = j * p.d_k;
            float* dQ_w = worker == 0 ? dQ : copies.get() + (worker - 1) * size;
            key_block_task(c, j, i / p.h, scratch + worker * p.scratch_floats(),
                           {in.Q + hc, in.dO + hc, dQ_w + hc, p.ld}, st(worker));
        });
        t = detail::start(st(0));
        for (int w = 1; w < threads; ++w) {
            const float* q = copies.get() + (w - 1) * size;
            for (std::size_t i = 0; i < size; ++i) dQ[i] += q[i];
        }
        detail::lap(st(0), t, &backward_breakdown::dQ);
    }
    for (const backward_breakdown& w : times) *s.times += w;
}

std::size_t core_extra_floats(const core_shape& s) {
    const core_plan p = plan_core(s);
    const std::size_t threads = std::size_t(std::max(1, s.threads));
    return copies_floats(p, int(threads)) + threads * p.scratch_floats() + p.h * p.n;
}

}  // namespace qkv::attention
