// Multi-head attention forward three ways (reference loops, per-head BLAS, fused blocks with an
// online softmax), and one decoding step with a KV cache. Letters: n tokens, d = d_model, h heads,
// d_k = d / h, g heads per pass, bq / bk rows per query / key block.
#include "qkv/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "qkv/blas.hpp"
#include "qkv/kernels.hpp"
#include "qkv/parallel_for.hpp"
#include "qkv/row_kernels.hpp"

namespace qkv::attention {

namespace {

using blas::trans;
using detail::active_row_kernels;
using detail::exp2_row;
using detail::row_kernels;
constexpr float log2e = std::numbers::log2e_v<float>;

void scale_row(float* z, std::size_t n, float c) {
    for (std::size_t j = 0; j < n; ++j) z[j] *= c;
}

// Keys row i may see: all of them, or with the causal mask those up to and including i.
std::size_t visible(std::size_t i, std::size_t n, bool causal) { return causal ? std::min(i + 1, n) : n; }

void check(const matrix& X, const weights& W, const options& o) {
    const std::size_t d = X.cols;
    if (o.heads == 0 || d == 0 || d % o.heads != 0)
        throw std::invalid_argument(fmt::format("attention: {} heads do not divide d_model = {}", o.heads, d));
    for (const matrix* w : {&W.W_Q, &W.W_K, &W.W_V, &W.W_O})
        if (w->rows != d || w->cols != d)
            throw std::invalid_argument(fmt::format("attention: weights are {}, X is {}", shape_str(*w), shape_str(X)));
}

// The columns c0 … c0+w−1 of M as their own matrix.
matrix columns(const matrix& M, std::size_t c0, std::size_t w) {
    matrix C(M.rows, w);  // C: [rows, w]
    for (std::size_t i = 0; i < M.rows; ++i) std::copy_n(M.row(i) + c0, w, C.row(i));
    return C;
}

}  // namespace

// --- reference: the lessons' formulas, one kernel each ------------------------------------------

matrix forward_reference(const matrix& X, const weights& W, const options& o) {
    check(X, W, o);
    using namespace kernels;
    const std::size_t n = X.rows, d = X.cols, d_k = d / o.heads;
    const matrix Q = matmul_ref(X, W.W_Q), K = matmul_ref(X, W.W_K), V = matmul_ref(X, W.W_V);  // [n, d]
    const float scale = 1.0f / std::sqrt(float(d_k));
    const matrix mask = o.causal ? causal_mask(n) : matrix(n, n);  // [n, n]: 0 or -inf
    matrix Zc(n, d);  // Zc: [n, d], the heads' outputs side by side
    for (std::size_t i = 0; i < o.heads; ++i) {
        const matrix Q_i = columns(Q, i * d_k, d_k), K_i = columns(K, i * d_k, d_k), V_i = columns(V, i * d_k, d_k);
        matrix S = matmul_ref(Q_i, transpose(K_i));  // S: [n, n]
        for (std::size_t r = 0; r < n; ++r)
            for (std::size_t c = 0; c < n; ++c) S(r, c) = S(r, c) * scale + mask(r, c);
        const matrix A = softmax_rows(S);        // A: [n, n]
        const matrix Z_i = matmul_ref(A, V_i);   // Z_i: [n, d_k]
        for (std::size_t r = 0; r < n; ++r) std::copy_n(Z_i.row(r), d_k, Zc.row(r) + i * d_k);
    }
    return matmul_ref(Zc, W.W_O);  // [n, d]
}

// --- blas: per head, the whole n × n matrix ------------------------------------------------------

namespace {

// A = softmax(S) over each row in place (S: [n, n]), the masked part set to 0.
void softmax_in_place(float* S, std::size_t n, bool causal, int threads) {
    constexpr std::size_t rows_per_task = 64;
    parallel_for((n + rows_per_task - 1) / rows_per_task, threads, [&](std::size_t t, int) {
        for (std::size_t i = t * rows_per_task; i < std::min(n, (t + 1) * rows_per_task); ++i) {
            float* s = S + i * n;
            const std::size_t v = visible(i, n, causal);
            // the max is subtracted for numerical stability: exp never sees a large argument
            const float sum = exp2_row(s, v);  // S is in log2 units: 2^s = e^(s ln 2)
            scale_row(s, v, 1.0f / sum);
            std::fill(s + v, s + n, 0.0f);
        }
    });
}

}  // namespace

matrix forward_blas(const matrix& X, const weights& W, const options& o) {
    check(X, W, o);
    const std::size_t n = X.rows, d = X.cols, d_k = d / o.heads;
    const blas::scoped_threads blas_threads(o.threads);
    std::vector<float> Q_i(n * d_k), K_i(n * d_k), V_i(n * d_k);  // each [n, d_k]
    std::vector<float> S(n * n);                                     // S: [n, n], then A in place
    matrix Zc(n, d);                                                 // Zc: [n, d]
    for (std::size_t i = 0; i < o.heads && n > 0; ++i) {
        const std::size_t c0 = i * d_k;
        blas::gemm_raw(n, d_k, d, 1.0f, X.data.data(), d, W.W_Q.data.data() + c0, d, trans::no, 0.0f, Q_i.data(), d_k);
        blas::gemm_raw(n, d_k, d, 1.0f, X.data.data(), d, W.W_K.data.data() + c0, d, trans::no, 0.0f, K_i.data(), d_k);
        blas::gemm_raw(n, d_k, d, 1.0f, X.data.data(), d, W.W_V.data.data() + c0, d, trans::no, 0.0f, V_i.data(), d_k);
        // S = Q_i K_i^T / sqrt(d_k), times log2(e) so the softmax can use 2^x
        blas::gemm_raw(n, n, d_k, log2e / std::sqrt(float(d_k)), Q_i.data(), d_k, K_i.data(), d_k, trans::yes, 0.0f, S.data(), n);
        softmax_in_place(S.data(), n, o.causal, o.threads);
        // Zc[:, c0 …] = A V_i
        blas::gemm_raw(n, d_k, n, 1.0f, S.data(), n, V_i.data(), d_k, trans::no, 0.0f, Zc.data.data() + c0, d);
    }
    matrix Z;
    blas::gemm(Z, Zc, trans::no, W.W_O, trans::no);  // Z: [n, d]
    return Z;
}

// --- fused: key blocks, online softmax, no n × n matrix ---------------------------------------

namespace {

struct fused_plan {
    std::size_t n, d, h, d_k, g, bq, bk;
    std::size_t kv_floats() const { return 2 * n * g * d_k; }                      // K_gᵀ, V_g
    std::size_t scratch_floats() const { return 2 * bq * g * d_k + bq * bk + 2 * bq; }  // per thread
};

fused_plan plan_fused(std::size_t n, std::size_t d, const options& o) {
    // Measured on Zen 4 with OpenBLAS 0.3.21 (n = 4096, d_k = 64, one thread, ms for the forward
    // pass): bq × bk = 512 × 256: 483; 1024 × 256: 483; 512 × 512: 490; 256 × 256: 503; 512 × 128:
    // 503. 512 query rows amortise packing each key block over many rows, and a 512 × 256 block of
    // S (512 KiB) leaves half of the 1 MiB L2 to the packed operands. Smaller query blocks when n
    // is small, so every thread gets a few.
    std::size_t bq = o.block_q;
    if (bq == 0) {
        bq = 512;
        while (bq > 64 && n < bq * 2 * std::size_t(std::max(1, o.threads))) bq /= 2;
    }
    fused_plan p{n, d, o.heads, d / o.heads, 0, bq, o.block_k ? o.block_k : 256};
    p.g = o.heads_per_pass;
    if (p.g == 0) {  // the most heads whose keys and values fit the budget, and divide h
        p.g = 1;
        for (std::size_t g = o.heads; g >= 1; --g)
            if (o.heads % g == 0 && 2 * n * g * p.d_k * sizeof(float) <= o.max_kv_bytes) { p.g = g; break; }
    }
    if (p.g == 0 || o.heads % p.g != 0)
        throw std::invalid_argument(fmt::format("attention: {} heads per pass do not divide {} heads", p.g, o.heads));
    return p;
}

// How far (in log2 units) a key block's scores may rise above a row's running max m before m is
// raised: weights up to 2^16, summed over a few thousand keys, stay far inside a float.
constexpr float lazy_headroom = 16.0f;

struct scratch {
    float* Q;  // [bq, g·d_k]: this block's queries, already times log2(e) / sqrt(d_k)
    float* Z;  // [bq, g·d_k]: this block's head outputs side by side
    float* S;  // [bq, bk]: scores of one key block, then their exp in place
    float* m;  // [bq]: running max of each row (up to lazy_headroom below the true one)
    float* l;  // [bq]: running sum of 2^(s − m) of each row
};

// Z (rows, d_k; stride ld) = softmax(Q K^T) V for queries q0 … q0+rows−1 against every key,
// one key block at a time: the running max m and sum l let each block be folded in as it comes.
// Q, V and Z have row stride ld; Kt is this head's K^T, [d_k, n] (stride n), so the scores'
// product reads both operands as stored, which OpenBLAS does 3 % faster than K transposed.
void attend_block(const fused_plan& p, bool causal, std::size_t q0, std::size_t rows,
                  const float* Q, const float* Kt, const float* V, std::size_t ld, float* Z, const scratch& w) {
    const std::size_t key_end = causal ? q0 + rows : p.n;
    const row_kernels& k = active_row_kernels();
    for (std::size_t k0 = 0; k0 < key_end; k0 += p.bk) {
        const std::size_t cols = std::min(p.bk, key_end - k0);
        const bool first = k0 == 0;
        // pass 1: scores S [rows, cols] = Q [rows, d_k] @ K^T[:, k0 …] [d_k, cols]
        blas::gemm_raw(rows, cols, p.d_k, 1.0f, Q, ld, Kt + k0, p.n, trans::no, 0.0f, w.S, p.bk);
        // pass 2: per row, P = 2^(s − m) in place and its sum, m the row's max so far. m is raised
        // lazily: a block whose scores stay within lazy_headroom of it keeps it, so most blocks
        // take one pass over S (no separate max) and leave Z as it is.
        for (std::size_t i = 0; i < rows; ++i) {
            float* s = w.S + i * p.bk;
            const std::size_t v = causal ? std::min(cols, q0 + i + 1 > k0 ? q0 + i + 1 - k0 : 0) : cols;
            std::fill(s + v, s + cols, 0.0f);
            if (v == 0) continue;  // every key of this block is in row i's future
            float s_max;
            if (first) {  // (with the mask too: key 0 is visible to every row)
                w.m[i] = k.row_max(s, v);
                w.l[i] = k.exp2_sum(s, v, w.m[i], s_max);
                continue;
            }
            const float m = w.m[i];
            float sum = k.exp2_sum(s, v, m, s_max);
            if (s_max <= m + lazy_headroom) {
                w.l[i] += sum;
                continue;
            }
            // rare: scores rose far above m. Bring this block to the new max s_max …
            if (s_max - m <= 100.0f) {
                const float c = std::exp2(m - s_max);  // 2^(s − m) · 2^(m − s_max) = 2^(s − s_max)
                scale_row(s, v, c);
                sum *= c;
            } else {  // … computing the scores again when 2^(s − m) may have met the clamp at 2^127
                blas::gemm_raw(1, v, p.d_k, 1.0f, Q + i * ld, ld, Kt + k0, p.n, trans::no, 0.0f, s, p.bk);
                sum = k.exp2_sum(s, v, s_max, s_max);
            }
            // … and what was summed under the old m to it: old terms were 2^(s − m)
            const float c = std::exp2(m - s_max);
            w.l[i] = w.l[i] * c + sum;
            scale_row(Z + i * ld, p.d_k, c);
            w.m[i] = s_max;
        }
        // pass 3: Z (+)= P [rows, cols] @ V[k0 …] [cols, d_k]
        blas::gemm_raw(rows, p.d_k, cols, 1.0f, w.S, p.bk, V + k0 * ld, ld, trans::no, first ? 0.0f : 1.0f, Z, ld);
    }
    // pass 4: divide by the sum, so each row of weights summed to 1
    for (std::size_t i = 0; i < rows; ++i) scale_row(Z + i * ld, p.d_k, 1.0f / w.l[i]);
}

// Output rows q0 … of one query block, for the heads of pass `pass` (added to earlier passes).
void query_block(const fused_plan& p, const options& o, const matrix& X, const weights& W, std::size_t pass,
                 const float* Kt_g, const float* V_g, std::size_t q0, const scratch& w, matrix& out) {
    const std::size_t rows = std::min(p.bq, p.n - q0), wg = p.g * p.d_k, c0 = pass * wg;
    // Q [rows, g·d_k] = X[q0 …] @ W_Q[:, c0 …] · log2(e) / sqrt(d_k): scores come out ready for 2^x
    blas::gemm_raw(rows, wg, p.d, log2e / std::sqrt(float(p.d_k)), X.row(q0), p.d, W.W_Q.data.data() + c0, p.d,
                   trans::no, 0.0f, w.Q, wg);
    for (std::size_t j = 0; j < p.g; ++j)
        attend_block(p, o.causal, q0, rows, w.Q + j * p.d_k, Kt_g + j * p.d_k * p.n, V_g + j * p.d_k, wg, w.Z + j * p.d_k, w);
    // out[q0 …] (+)= Z [rows, g·d_k] @ W_O[c0 …, :]: the sum over heads of head_i · W_O,i
    blas::gemm_raw(rows, p.d, wg, 1.0f, w.Z, wg, W.W_O.row(c0), p.d, trans::no, pass == 0 ? 0.0f : 1.0f,
                   out.row(q0), p.d);
}

}  // namespace

matrix forward_fused(const matrix& X, const weights& W, const options& o) {
    check(X, W, o);
    const fused_plan p = plan_fused(X.rows, X.cols, o);
    const int threads = std::max(1, o.threads);
    // our threads split the work; each product runs on the thread that asks
    const blas::scoped_threads blas_threads(1);
    const std::size_t wg = p.g * p.d_k, n_qb = (p.n + p.bq - 1) / p.bq;
    // not zeroed: every float is written before it is read, and zeroing 16 MiB costs 1 %
    const std::unique_ptr<float[]> KV(new float[p.kv_floats()]);  // K_gᵀ: [g·d_k, n], V_g: [n, g·d_k]
    const std::unique_ptr<float[]> work(new float[threads * p.scratch_floats()]);
    matrix out(p.n, p.d);                            // out: [n, d]
    for (std::size_t pass = 0; pass * p.g < p.h; ++pass) {
        float *Kt_g = KV.get(), *V_g = KV.get() + p.n * wg;
        // one product per thread: OpenBLAS makes K^T in 256-row pieces 5 % slower than in one
        const std::size_t proj_rows = (p.n + threads - 1) / threads;
        parallel_for((p.n + proj_rows - 1) / proj_rows, threads, [&](std::size_t t, int) {
            const std::size_t r0 = t * proj_rows, rows = std::min(proj_rows, p.n - r0);
            // K_gᵀ[:, r0 …] [g·d_k, rows] = W_K[:, pass·g·d_k …]ᵀ @ X[r0 …]ᵀ; V_g [rows, g·d_k] = X[r0 …] @ W_V[:, …]
            blas::gemm_raw(wg, rows, p.d, 1.0f, W.W_K.data.data() + pass * wg, p.d, trans::yes, X.row(r0), p.d, trans::yes,
                           0.0f, Kt_g + r0, p.n);
            blas::gemm_raw(rows, wg, p.d, 1.0f, X.row(r0), p.d, W.W_V.data.data() + pass * wg, p.d, trans::no, 0.0f, V_g + r0 * wg, wg);
        });
        parallel_for(n_qb, threads, [&](std::size_t t, int worker) {
            float* base = work.get() + worker * p.scratch_floats();
            const scratch w{base, base + p.bq * wg, base + 2 * p.bq * wg, base + 2 * p.bq * wg + p.bq * p.bk,
                            base + 2 * p.bq * wg + p.bq * p.bk + p.bq};
            // with the causal mask late blocks cost most: hand them out first
            const std::size_t qb = o.causal ? n_qb - 1 - t : t;
            query_block(p, o, X, W, pass, Kt_g, V_g, qb * p.bq, w, out);
        });
    }
    return out;
}

matrix forward(impl which, const matrix& X, const weights& W, const options& o) {
    switch (which) {
        case impl::reference: return forward_reference(X, W, o);
        case impl::blas: return forward_blas(X, W, o);
        case impl::fused: return forward_fused(X, W, o);
    }
    throw std::invalid_argument("attention: unknown implementation");
}

std::size_t extra_bytes(impl which, std::size_t n, std::size_t d, const options& o) {
    const std::size_t h = std::max<std::size_t>(o.heads, 1), d_k = d / h;
    std::size_t floats = 0;
    switch (which) {
        case impl::reference:  // Q, K, V, Zc; one head's Q_i, K_i, V_i, K_i^T, Z_i; mask, S and A
            floats = 4 * n * d + 5 * n * d_k + 3 * n * n;
            break;
        case impl::blas:  // Q_i, K_i, V_i; S; Zc
            floats = 3 * n * d_k + n * n + n * d;
            break;
        case impl::fused: {
            const fused_plan p = plan_fused(n, d, o);
            floats = p.kv_floats() + std::size_t(std::max(1, o.threads)) * p.scratch_floats();
            break;
        }
    }
    return floats * sizeof(float);
}

std::string_view impl_name(impl which) {
    switch (which) {
        case impl::reference: return "reference";
        case impl::blas: return "blas";
        case impl::fused: return "fused";
    }
    return "?";
}

std::optional<impl> parse_impl(std::string_view name) {
    for (impl i : {impl::reference, impl::blas, impl::fused})
        if (impl_name(i) == name) return i;
    return std::nullopt;
}

// --- decoding with a KV cache -------------------------------------------------------------------

void prefill(kv_cache& cache, const matrix& X, const weights& W) {
    const std::size_t t = X.rows, d = X.cols;
    if (cache.K.cols != d || t > cache.K.rows)
        throw std::invalid_argument(fmt::format("prefill: X is {}, cache {}", shape_str(X), shape_str(cache.K)));
    // K[0 … t), V[0 … t) [t, d] = X @ W_K, X @ W_V
    blas::gemm_raw(t, d, d, 1.0f, X.data.data(), d, W.W_K.data.data(), d, trans::no, 0.0f, cache.K.data.data(), d);
    blas::gemm_raw(t, d, d, 1.0f, X.data.data(), d, W.W_V.data.data(), d, trans::no, 0.0f, cache.V.data.data(), d);
    cache.len = t;
}

matrix decode_step(kv_cache& cache, const matrix& x, const weights& W, std::size_t heads) {
    const std::size_t d = x.cols, d_k = d / heads;
    if (x.rows != 1 || cache.K.cols != d || cache.len >= cache.K.rows)
        throw std::invalid_argument(fmt::format("decode_step: x is {}, cache {} holding {}", shape_str(x),
                                                shape_str(cache.K), cache.len));
    matrix q;  // q: [1, d]
    blas::gemm(q, x, trans::no, W.W_Q, trans::no);
    // the new key and value join the cache: only this token's are computed, never the old ones again
    blas::gemm_raw(1, d, d, 1.0f, x.data.data(), d, W.W_K.data.data(), d, trans::no, 0.0f, cache.K.row(cache.len), d);
    blas::gemm_raw(1, d, d, 1.0f, x.data.data(), d, W.W_V.data.data(), d, trans::no, 0.0f, cache.V.row(cache.len), d);
    const std::size_t t = ++cache.len;
    std::vector<float> s(t);  // s: [1, t], scores then weights of one head
    matrix zc(1, d);          // zc: [1, d]
    for (std::size_t i = 0; i < heads; ++i) {
        const std::size_t c0 = i * d_k;
        // s = q_i K_i^T / sqrt(d_k) over every cached token, times log2(e) for 2^x
        blas::gemm_raw(1, t, d_k, log2e / std::sqrt(float(d_k)), q.data.data() + c0, d, cache.K.data.data() + c0, d,
                       trans::yes, 0.0f, s.data(), t);
        const float sum = exp2_row(s.data(), t);
        // zc[c0 …] = softmax(s) V_i, the division by the sum folded into alpha
        blas::gemm_raw(1, d_k, t, 1.0f / sum, s.data(), t, cache.V.data.data() + c0, d, trans::no, 0.0f,
                       zc.data.data() + c0, d);
    }
    matrix z;
    blas::gemm(z, zc, trans::no, W.W_O, trans::no);  // z: [1, d]
    return z;
}

}  // namespace qkv::attention