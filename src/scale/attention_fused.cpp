// The fused attention (attention_fused.hpp): key blocks and an online softmax, every product on
// the tile kernels. Letters: n tokens, d = d_model, h heads, d_k = d / h, g heads per pass,
// wg = g·d_k columns per pass, bq / bk rows per query / key block.
#include "qkv/attention_fused.hpp"

#include "qkv/attention_backward.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <vector>

#include "qkv/parallel_for.hpp"
#include "qkv/row_kernels.hpp"
#include "qkv/tile_kernels.hpp"
#include "fused_plan.hpp"
#include "stage_clock.hpp"

namespace qkv::attention {

namespace {

using detail::active_row_kernels;
using detail::causal_band;
using detail::operand_b;
using detail::rows_of;
using detail::row_kernels;
using detail::scale_row;
using detail::tile_gemm;
using detail::lap;
using detail::start;
using detail::thread_clock;

// Asks for share `part` of `parts` of the bytes at p to be brought into the cache (L1 and L2),
// a line of 64 bytes at a time, without waiting for them.
void prefetch_share(const void* p, std::size_t bytes, std::size_t part, std::size_t parts) {
    const std::size_t lines = (bytes + 63) / 64, per = (lines + parts - 1) / parts;
    const char* c = static_cast<const char*>(p);
    for (std::size_t l = part * per; l < std::min(lines, (part + 1) * per); ++l) __builtin_prefetch(c + 64 * l, 0, 2);
}

// How far (in log2 units) a key block's scores may rise above a row's running max m before m is
// raised: weights up to 2^16, summed over a few thousand keys, stay far inside a float.
constexpr float lazy_headroom = 16.0f;

// Seconds one worker spent in each stage (options::breakdown).
struct stage_times {
    double project_kv = 0, project_q = 0, scores = 0, exps = 0, weighted = 0, output = 0;
};

struct scratch {
    stage_times* st;  // null unless a breakdown is asked for
    float* Q;  // [bq, d_k]: one head's queries for this block, already times log2(e) / sqrt(d_k)
    float* Z;  // [bq, wg]: this block's head outputs side by side
    float* S;  // [bq, bk]: scores of one key block, then their exp in place
    float* m;  // [bq]: running max of each row (up to lazy_headroom below the true one)
    float* l;  // [bq]: running sum of 2^(s − m) of each row
    float* sum;  // [bq]: a block's sum of 2^(s − m) of each row, when its exps are finished in registers
};

scratch scratch_at(const fused_plan& p, float* base) {
    float* Z = base + p.bq * p.d_k;
    float* S = Z + p.bq * p.wg();
    float* m = S + p.bq * p.bk;
    return {nullptr, base, Z, S, m, m + p.bq, m + 2 * p.bq};
}

// Row i of a key block as P = 2^(s − m) [v entries at s] under the running max m, with their sum
// and the scores' max s_max, joined to the running max m and sum l. m is raised lazily: a block
// whose scores stay within lazy_headroom of it keeps it, so most blocks leave Z as it is.
void join_row(float* s, std::size_t v, float sum, float s_max, float& m, float& l, float* z, std::size_t d_k,
              const float* q, const operand_b& Kt) {
    if (s_max <= m + lazy_headroom) {
        l += sum;
        return;
    }
    // rare: scores rose far above m. Bring this block to the new max s_max …
    if (s_max - m <= 100.0f) {
        const float c = std::exp2(m - s_max);  // 2^(s − m) · 2^(m − s_max) = 2^(s − s_max)
        scale_row(s, v, c);
        sum *= c;
    } else {  // … computing the scores again when 2^(s − m) may have saturated at 2^127 (and
              // their max with them, when what saturated left it unknown: inf)
        tile_gemm(1, v, d_k, 1.0f, q, d_k, Kt, false, s, v);
        if (std::isinf(s_max)) s_max = active_row_kernels().row_max(s, v);
        sum = active_row_kernels().exp2_sum(s, v, s_max, s_max);
    }
    // … and what was summed under the old m to it: old terms were 2^(s − m)
    const float c = std::exp2(m - s_max);
    l = l * c + sum;
    scale_row(z, d_k, c);
    m = s_max;
}

// Row i of a key block whose P = 2^(s − m) [v entries at s] came finished from the product, with
// only their sum: every entry is at most the sum, so a sum within 2^lazy_headroom keeps m. Above
// it (rare) the scores' max is read off the largest entry, up to a rise of 100; beyond, an entry
// may have saturated (at inf, or at 2^127 in the portable 2^x), the max is unknown (inf), and
// join_row computes the scores again.
void join_finished_row(float* s, std::size_t v, float sum, float& m, float& l, float* z, std::size_t d_k,
                       const float* q, const operand_b& Kt) {
    if (sum <= std::exp2(lazy_headroom)) {
        l += sum;
        return;
    }
    const float rise = std::log2(active_row_kernels().row_max(s, v));
    join_row(s, v, sum, rise <= 100.0f ? m + rise : std::numeric_limits<float>::infinity(), m, l, z, d_k, q, Kt);
}

// Row i of a key block's scores s [v visible of cols] becomes P = 2^(s − m) in place and joins
// the running max m and sum l; the first block sets them.
void fold_row(float* s, std::size_t v, bool first, float& m, float& l, float* z, std::size_t d_k, const float* q,
              const operand_b& Kt) {
    const row_kernels& k = active_row_kernels();
    float s_max;
    if (first) {  // (with the mask too: key 0 is visible to every row)
        m = k.row_max(s, v);
        l = k.exp2_sum(s, v, m, s_max);
        return;
    }
    const float sum = k.exp2_sum(s, v, m, s_max);
    join_row(s, v, sum, s_max, m, l, z, d_k, q, Kt);
}

// The next key block's K^T and V, fetched a share per row of pass 2 while this block's exps run:
// fetched from L3 only when the products reached them, they held the scores and A·V below the
// speed those reach with their operands in L2.
struct next_block {
    const float *Kt = nullptr, *V = nullptr;  // [d_k, kb_ld], [≤ bk, d_k]; null after the last block
    std::size_t Kt_bytes = 0, V_bytes = 0;
    void fetch_share(std::size_t i, std::size_t rows) const {
        if (!Kt) return;
        prefetch_share(Kt, Kt_bytes, i, rows);
        prefetch_share(V, V_bytes, i, rows);
    }
};

// The block after the one at k0 of a head's K^T and V, up to key_end.
next_block next_of(const fused_plan& p, const float* Kt, const float* V, std::size_t k0, std::size_t key_end) {
    const std::size_t k1 = k0 + p.bk;
    if (k1 >= key_end) return {};
    return {Kt + (k1 / p.bk) * p.d_k * p.kb_ld(), V + k1 * p.d_k, p.d_k * p.kb_ld() * sizeof(float),
            std::min(p.bk, key_end - k1) * p.d_k * sizeof(float)};
}

// Z (rows, d_k; stride ld) = softmax(Q K^T) V for queries q0 … q0+rows−1 against every key,
// one key block at a time: the running max m and sum l let each block be folded in as it comes.
// Q has row stride d_k and Z row stride ld; Kt is this head's K^T, key block by key block (fused_plan); V is
// this head's values, [n, d_k]. With the mask, key blocks after the last query are never touched
// and the tiles of a diagonal block above the diagonal are skipped.
void attend_block(const fused_plan& p, bool causal, std::size_t q0, std::size_t rows, const float* Q, const float* Kt,
                  const float* V, std::size_t ld, float* Z, const scratch& w) {
    const std::size_t key_end = causal ? q0 + rows : p.n;
    auto t = start(w.st);
    for (std::size_t k0 = 0; k0 < key_end; k0 += p.bk) {
        const std::size_t cols = std::min(p.bk, key_end - k0);
        const bool first = k0 == 0;
        const std::ptrdiff_t shift = std::ptrdiff_t(q0) - std::ptrdiff_t(k0);
        const operand_b Kt_block = rows_of(Kt + (k0 / p.bk) * p.d_k * p.kb_ld(), p.kb_ld());  // [d_k, cols]
        // Once m is known (every block after the first) and every row sees every key of the
        // block (always without the mask), passes 1 and 2 are one: P = 2^(s − m) comes out of the
        // product that makes the scores, with each row's sum, never stored as scores.
        const bool finished = !first && (!causal || k0 + cols <= q0 + 1);
        if (finished)
            detail::tile_gemm_exp2(rows, cols, p.d_k, 1.0f, Q, p.d_k, Kt_block, w.m, w.S, p.bk, w.sum);
        else  // pass 1: scores S [rows, cols] = Q [rows, d_k] @ K^T[:, k0 …] [d_k, cols]
            tile_gemm(rows, cols, p.d_k, 1.0f, Q, p.d_k, Kt_block, false, w.S, p.bk,
                      causal ? causal_band{causal_band::columns, shift} : causal_band{});
        lap(w.st, t, &stage_times::scores);
        const next_block next = next_of(p, Kt, V, k0, key_end);
        // pass 2: per row, P = 2^(s − m) in place (done already when finished), the masked part 0
        for (std::size_t i = 0; i < rows; ++i) {
            next.fetch_share(i, rows);
            float* s = w.S + i * p.bk;
            if (finished) {
                join_finished_row(s, cols, w.sum[i], w.m[i], w.l[i], Z + i * ld, p.d_k, Q + i * p.d_k, Kt_block);
                continue;
            }
            const std::size_t v = causal ? std::min(cols, q0 + i + 1 > k0 ? q0 + i + 1 - k0 : 0) : cols;
            std::fill(s + v, s + cols, 0.0f);
            if (v > 0) fold_row(s, v, first, w.m[i], w.l[i], Z + i * ld, p.d_k, Q + i * p.d_k, Kt_block);
        }
        lap(w.st, t, &stage_times::exps);
        // pass 3: Z (+)= P [rows, cols] @ V[k0 …] [cols, d_k]
        tile_gemm(rows, p.d_k, cols, 1.0f, w.S, p.bk, rows_of(V + k0 * p.d_k, p.d_k), !first, Z, ld,
                  causal ? causal_band{causal_band::depth, shift} : causal_band{});
        lap(w.st, t, &stage_times::weighted);
    }
    // pass 4: divide by the sum, so each row of weights summed to 1
    for (std::size_t i = 0; i < rows; ++i) scale_row(Z + i * ld, p.d_k, 1.0f / w.l[i]);
    lap(w.st, t, &stage_times::weighted);
}

// One pass's weights packed into panels of 64 columns: W_K, W_V [d, wg], W_O [wg, d], and W_Q
// head by head ([d, d_k] each), so that each head's queries come out as their own block.
struct packed_weights {
    std::unique_ptr<float[]> buffer;
    operand_b W_K, W_V, W_O;
    std::vector<operand_b> W_Q;  // one per head of the pass
};

// Floats of one pass's packed weights: W_K and W_V, W_O, and W_Q head by head.
std::size_t packed_pass_floats(const fused_plan& p) {
    return 2 * detail::packed_floats(p.d, p.wg()) + detail::packed_floats(p.wg(), p.d) +
           p.g * detail::packed_floats(p.d, p.d_k);
}

packed_weights pack_pass(const fused_plan& p, const weights& W, std::size_t c0, int threads) {
    const std::size_t wg = p.wg(), in = detail::packed_floats(p.d, wg), out = detail::packed_floats(wg, p.d);
    const std::size_t head = detail::packed_floats(p.d, p.d_k);
    packed_weights P{std::unique_ptr<float[]>(new float[packed_pass_floats(p)]), {}, {}, {},
                     std::vector<operand_b>(p.g)};
    float* b = P.buffer.get();
    // W_K, W_V, W_O and each head's W_Q are packed as separate tasks: the threads share the
    // packing, and above all the second thread is awake when the products start (packed by thread
    // 0 alone, the products after it ran late on the second thread).
    parallel_for(3 + p.g, threads, [&](std::size_t task, int) {
        switch (task) {
            case 0: P.W_K = detail::pack_panels(p.d, wg, W.W_K.data.data() + c0, p.d, b); return;
            case 1: P.W_V = detail::pack_panels(p.d, wg, W.W_V.data.data() + c0, p.d, b + in); return;
            case 2: P.W_O = detail::pack_panels(wg, p.d, W.W_O.row(c0), p.d, b + 2 * in); return;
            default: {
                const std::size_t j = task - 3;
                float* to = b + 2 * in + out + j * head;
                P.W_Q[j] = detail::pack_panels(p.d, p.d_k, W.W_Q.data.data() + c0 + j * p.d_k, p.d, to);
            }
        }
    });
    return P;
}

// Key block b's K^T (g heads, [d_k, bk] each) and values (into V_g, g heads of [n, d_k]),
// through tmp [bk, wg].
// The rows r0 … r0+rows−1 of tmp [rows, wg] into columns c0 … of M, for the backward (keep).
void keep_rows(const float* tmp, std::size_t rows, std::size_t wg, matrix& M, std::size_t r0, std::size_t c0) {
    for (std::size_t i = 0; i < rows; ++i) std::copy_n(tmp + i * wg, wg, M.row(r0 + i) + c0);
}

void project_key_block(const fused_plan& p, const matrix& X, const packed_weights& P, std::size_t b, float* tmp,
                       float* Kt_g, float* V_g, saved_forward* keep, std::size_t c0) {
    const std::size_t r0 = b * p.bk, rows = std::min(p.bk, p.n - r0), wg = p.wg(), kb_ld = p.kb_ld();
    tile_gemm(rows, wg, p.d, 1.0f, X.row(r0), p.d, P.W_K, false, tmp, wg);  // K rows [rows, wg]
    if (keep) keep_rows(tmp, rows, wg, keep->K, r0, c0);
    for (std::size_t j = 0; j < p.g; ++j)  // head j's block b: [d_k, kb_ld]
        detail::transpose(rows, p.d_k, tmp + j * p.d_k, wg, Kt_g + (j * p.key_blocks() + b) * p.d_k * kb_ld, kb_ld);
    tile_gemm(rows, wg, p.d, 1.0f, X.row(r0), p.d, P.W_V, false, tmp, wg);  // V rows [rows, wg]
    if (keep) keep_rows(tmp, rows, wg, keep->V, r0, c0);
    for (std::size_t j = 0; j < p.g; ++j)
        for (std::size_t i = 0; i < rows; ++i)
            std::copy_n(tmp + i * wg + j * p.d_k, p.d_k, V_g + (j * p.n + r0 + i) * p.d_k);
}

// Output rows q0 … of one query block, for the heads of pass `pass` (added to earlier passes' when add).
void query_block(const fused_plan& p, bool causal, const matrix& X, const packed_weights& P, std::size_t pass,
                 bool add, const float* Kt_g, const float* V_g, std::size_t q0, const scratch& w, matrix& out,
                 saved_forward* keep) {
    const std::size_t rows = std::min(p.bq, p.n - q0), wg = p.wg();
    for (std::size_t j = 0; j < p.g; ++j) {
        auto t = start(w.st);
        // Q_j [rows, d_k] = X[q0 …] @ W_Q[:, head j] · log2(e) / sqrt(d_k): scores come out ready for 2^x
        tile_gemm(rows, p.d_k, p.d, std::numbers::log2e_v<float> / std::sqrt(float(p.d_k)), X.row(q0), p.d, P.W_Q[j], false, w.Q, p.d_k);
        lap(w.st, t, &stage_times::project_q);
        const float* Kt = Kt_g + j * p.key_blocks() * p.d_k * p.kb_ld();  // head j's K^T, block by block
        attend_block(p, causal, q0, rows, w.Q, Kt, V_g + j * p.n * p.d_k, wg, w.Z + j * p.d_k, w);
        if (!keep) continue;
        const std::size_t head = pass * p.g + j;
        keep_rows(w.Q, rows, p.d_k, keep->Q, q0, head * p.d_k);
        for (std::size_t i = 0; i < rows; ++i) keep->lse[head * p.n + q0 + i] = w.m[i] + std::log2(w.l[i]);
    }
    if (keep) keep_rows(w.Z, rows, wg, keep->O, q0, pass * wg);
    // out[q0 …] (+)= Z [rows, wg] @ W_O[pass rows …, :]: the sum over heads of head_i · W_O,i
    auto t = start(w.st);
    tile_gemm(rows, p.d, wg, 1.0f, w.Z, wg, P.W_O, add, out.row(q0), p.d);
    lap(w.st, t, &stage_times::output);
}

}  // namespace

namespace {

// Of the multiply-add slots the scores' and weighted sums' tiles issue for one head (6 rows ×
// whole vectors of 16 floats, as tile_gemm lays them), the share that does no useful work: rows
// past a block's end, lanes past a block's last column, and under the mask the part of a
// diagonal tile past its rows' last visible key.
double idle_slot_share(const fused_plan& p, bool causal) {
    auto vectors = [](std::size_t c) { return double((c + 15) / 16 * 16); };
    double slots = 0, useful = 0;
    for (std::size_t q0 = 0; q0 < p.n; q0 += p.bq)
        for (std::size_t k0 = 0, rows = std::min(p.bq, p.n - q0); k0 < (causal ? q0 + rows : p.n); k0 += p.bk) {
            const std::size_t cols = std::min(p.bk, p.n - k0);
            for (std::size_t i0 = 0; i0 < rows; i0 += 6) {
                auto seen = [&](std::size_t i) {  // keys row i of the block sees
                    return causal ? std::min(cols, q0 + i + 1 > k0 ? q0 + i + 1 - k0 : 0) : cols;
                };
                const std::size_t last = std::min(rows, i0 + 6), end = seen(last - 1);  // the tile runs to its last row's
                double computed = 0;
                for (std::size_t j0 = 0; j0 < end; j0 += 64) computed += vectors(std::min<std::size_t>(64, end - j0));
                slots += 6 * computed * double(p.d_k) + 6 * vectors(p.d_k) * double(end);  // scores, then P·V
                for (std::size_t i = i0; i < last; ++i) useful += 2 * double(seen(i)) * double(p.d_k);
            }
        }
    return slots > 0 ? 1 - useful / slots : 0;
}

// The workers' stage times, the packing's and the wall time into o.breakdown.
void fill_breakdown(const options& o, const fused_plan& p, const std::vector<stage_times>& times, double pack_s,
                    double wall_s) {
    fused_breakdown& b = *o.breakdown;
    b = {};
    b.threads = std::max(1, o.threads);
    b.pack = pack_s * b.threads;  // the packing runs on every thread; the first one's time, for all
    for (const stage_times& t : times) {
        b.project_kv += t.project_kv, b.project_q += t.project_q, b.scores += t.scores, b.exps += t.exps;
        b.weighted += t.weighted, b.output += t.output;
    }
    b.wall = wall_s;
    b.idle_slots = idle_slot_share(p, o.causal);
}

matrix forward_fused_impl(const matrix& X, const weights& W, const options& o, saved_forward* keep) {
    check_shapes(X, W, o);
    const fused_plan p = plan_fused(X.rows, X.cols, o);
    const int threads = std::max(1, o.threads);
    const std::size_t wg = p.wg(), n_qb = (p.n + p.bq - 1) / p.bq;
    // not zeroed: every float is read only after it is written
    const std::unique_ptr<float[]> KV(new float[p.kv_floats()]);  // K_g^T: g × blocks × [d_k, kb_ld], V_g: g × [n, d_k]
    const std::unique_ptr<float[]> work(new float[threads * p.scratch_floats()]);
    float *Kt_g = KV.get(), *V_g = KV.get() + p.g * p.key_blocks() * p.d_k * p.kb_ld();
    matrix out(p.n, p.d);  // out: [n, d]
    std::vector<stage_times> times(o.breakdown ? threads : 0);
    const auto t0 = std::chrono::steady_clock::now();
    double pack_s = 0;
    const std::size_t first_pass = o.first_head / p.g, end = o.head_count ? o.first_head + o.head_count : p.h;
    for (std::size_t pass = first_pass; pass * p.g < end; ++pass) {
        auto t = start(times.empty() ? nullptr : times.data());
        const packed_weights P = pack_pass(p, W, pass * wg, threads);
        if (!times.empty()) pack_s += std::chrono::duration<double>(thread_clock::now() - t).count();
        parallel_for(p.key_blocks(), threads, [&](std::size_t b, int worker) {
            stage_times* st = times.empty() ? nullptr : &times[worker];
            auto t = start(st);
            project_key_block(p, X, P, b, work.get() + worker * p.scratch_floats(), Kt_g, V_g, keep, pass * wg);
            lap(st, t, &stage_times::project_kv);
        });
        parallel_for(n_qb, threads, [&](std::size_t t, int worker) {
            // with the causal mask late blocks cost most: hand them out first
            const std::size_t qb = o.causal ? n_qb - 1 - t : t;
            scratch w = scratch_at(p, work.get() + worker * p.scratch_floats());
            w.st = times.empty() ? nullptr : &times[worker];
            query_block(p, o.causal, X, P, pass, pass > first_pass, Kt_g, V_g, qb * p.bq, w, out, keep);
        });
    }
    if (o.breakdown)
        fill_breakdown(o, p, times, pack_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return out;
}

}  // namespace

matrix forward_fused(const matrix& X, const weights& W, const options& o) { return forward_fused_impl(X, W, o, nullptr); }

matrix forward_fused_keep(const matrix& X, const weights& W, const options& o, saved_forward& keep) {
    const std::size_t n = X.rows, d = X.cols;
    for (matrix* M : {&keep.Q, &keep.K, &keep.V, &keep.O})
        if (M->rows != n || M->cols != d) *M = matrix(n, d);
        else if (o.head_count != 0 && o.head_count != o.heads) std::fill(M->data.begin(), M->data.end(), 0.0f);
    keep.lse.assign(o.heads * n, 0.0f);
    keep.spent = false;
    return forward_fused_impl(X, W, o, &keep);
}

std::size_t fused_extra_floats(std::size_t n, std::size_t d, const options& o) {
    const fused_plan p = plan_fused(n, d, o);
    return p.kv_floats() + std::size_t(std::max(1, o.threads)) * p.scratch_floats() + packed_pass_floats(p);
}

}  // namespace qkv::attention
