// The fused backward's gradients of X and the weights (attention_backward.hpp): the projections'
// products on the tile kernels, rows of each result spread over the threads, around the fused
// core (attention_backward.cpp). Letters: n tokens, d = d_model, h heads, d_k = d / h.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <initializer_list>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "qkv/attention_backward.hpp"
#include "qkv/parallel_for.hpp"
#include "qkv/tile_kernels.hpp"
#include "stage_clock.hpp"

namespace qkv::attention {

namespace {

// Each worker's stage times (null: none kept) and the stage a product's time goes to.
struct stage {
    backward_breakdown* times;
    double backward_breakdown::*into;
    backward_breakdown* of(int worker) const { return times ? times + worker : nullptr; }
};

// B (k, n; row stride ldb) packed into panels at Bp, a panel per task.
detail::operand_b pack(std::size_t k, std::size_t n, const float* B, std::size_t ldb, float* Bp, int threads,
                       const stage& sg) {
    const std::size_t panels = (n + detail::panel_cols - 1) / detail::panel_cols;
    parallel_for(panels, threads, [&](std::size_t j, int worker) {
        auto t = detail::start(sg.of(worker));
        const std::size_t j0 = j * detail::panel_cols;
        detail::pack_panels(k, std::min(detail::panel_cols, n - j0), B + j0, ldb, Bp + j0 * k);
        detail::lap(sg.of(worker), t, sg.into);
    });
    return {Bp, detail::panel_cols, k * detail::panel_cols};
}

// C (m, n) (+)= A (m, k)·B (k, n), every row stride the matrix's own width. Bands of rows of C on
// the threads. (Aᵀ is made first where a gradient needs it: read in place down its columns, rows
// of X or O 2 KiB apart would fall in a few of the L1 cache's sets.)
void product(std::size_t m, std::size_t n, std::size_t k, const float* A, const float* B, float* Bp, bool accumulate,
             float* C, int threads, const stage& sg) {
    const detail::operand_b Bo = pack(k, n, B, n, Bp, threads, sg);
    const std::size_t band = std::max<std::size_t>(6, (m / (4 * std::size_t(threads)) + 5) / 6 * 6);
    parallel_for((m + band - 1) / band, threads, [&](std::size_t i, int worker) {
        auto t = detail::start(sg.of(worker));
        const std::size_t r0 = i * band, rows = std::min(band, m - r0);
        detail::tile_gemm(rows, n, k, 1.0f, A + r0 * k, k, Bo, accumulate, C + r0 * n, n);
        detail::lap(sg.of(worker), t, sg.into);
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
    if (s.spent)
        throw std::invalid_argument("attention backward: what the forward kept was used up by an earlier backward");
}

core_shape core_of(std::size_t n, std::size_t d, const options& o) {
    const std::size_t d_k = d / o.heads;
    return {n, d, o.heads, d_k, o.causal, std::numbers::log2e_v<float> / std::sqrt(float(d_k)), o.threads,
            o.block_q, o.block_k};
}

}  // namespace

namespace {

// Tokens per slice of the weights' gradients: Mᵀ is made a slice at a time, [d, chunk], so the
// backward never holds a whole transposed copy of X or O.
constexpr std::size_t chunk = 512;

// Rows r0 … r0+rows−1 of M [n, d] transposed into out [d, rows].
void transpose_rows(const matrix& M, std::size_t r0, std::size_t rows, float* out) {
    detail::transpose(rows, M.cols, M.row(r0), M.cols, out, rows);
}

// dW_k (d, d) = Mᵀ·G_k for each G_k [n, d], the tokens a chunk at a time.
void weight_gradients(const matrix& M, std::initializer_list<std::pair<const matrix*, matrix*>> G_dW, float* Mt,
                      float* Bp, int threads, backward_breakdown* times) {
    const std::size_t n = M.rows, d = M.cols;
    const stage sg{times, &backward_breakdown::weight_grads};
    for (std::size_t t0 = 0; t0 < n; t0 += chunk) {
        const std::size_t rows = std::min(chunk, n - t0);
        auto t = detail::start(sg.of(0));
        transpose_rows(M, t0, rows, Mt);  // [d, rows]
        detail::lap(sg.of(0), t, sg.into);
        for (auto [G, dW] : G_dW) product(d, d, rows, Mt, G->row(t0), Bp, t0 > 0, dW->data.data(), threads, sg);
    }
}

}  // namespace

gradients backward_fused(const matrix& X, const weights& W, saved_forward& kept, const matrix& dZ, const options& o) {
    check_backward_shapes(X, W, kept, dZ, o);
    kept.spent = true;
    const std::size_t n = X.rows, d = X.cols;
    const int threads = std::max(1, o.threads);
    const auto wall0 = std::chrono::steady_clock::now();
    std::vector<backward_breakdown> times(o.backward_times ? threads : 0);  // each worker's stages
    backward_breakdown* st = o.backward_times ? times.data() : nullptr;
    // B packed [≤ max(chunk, d), d]; a chunk of Xᵀ or Oᵀ [d, chunk], or a weight transposed [d, d]
    const std::unique_ptr<float[]> Bp(new float[detail::packed_floats(std::max(chunk, d), d)]);
    const std::unique_ptr<float[]> Mt(new float[d * std::max(chunk, d)]);
    gradients g{matrix(n, d), matrix(d, d), matrix(d, d), matrix(d, d), matrix(d, d)};
    matrix dO(n, d);  // [n, d], heads side by side; dQ, dK, dV too, made where O, K, V were
    matrix &dQ = kept.O, &dK = kept.K, &dV = kept.V;
    auto transposed = [&](const matrix& M, double backward_breakdown::*into) {  // M [d, d] → Mt
        auto t = detail::start(st);
        transpose_rows(M, 0, d, Mt.get());
        detail::lap(st, t, into);
        return Mt.get();
    };
    product(n, d, d, dZ.data.data(), transposed(W.W_O, &backward_breakdown::output_grad), Bp.get(), false,
            dO.data.data(), threads, {st, &backward_breakdown::output_grad});           // dO = dZ·W_Oᵀ
    weight_gradients(kept.O, {{&dZ, &g.dW_O}}, Mt.get(), Bp.get(), threads, st);  // dW_O = Oᵀ·dZ
    // from here O, K and V are read by the core alone, which writes dQ, dK, dV over them
    core_shape core = core_of(n, d, o);
    core.times = st;
    core_backward({kept.Q.data.data(), kept.K.data.data(), kept.V.data.data(), kept.O.data.data(), dO.data.data(),
                   kept.lse.data()},
                  dQ.data.data(), dK.data.data(), dV.data.data(), core);
    // dW = Xᵀ·dQ (dK, dV), and dX = Σ dQ·W_Qᵀ (…): X feeds all three projections
    weight_gradients(X, {{&dQ, &g.dW_Q}, {&dK, &g.dW_K}, {&dV, &g.dW_V}}, Mt.get(), Bp.get(), threads, st);
    bool accumulate = false;
    for (auto [dP, W_P] : {std::pair{&dQ, &W.W_Q}, {&dK, &W.W_K}, {&dV, &W.W_V}}) {
        product(n, d, d, dP->data.data(), transposed(*W_P, &backward_breakdown::input_grad), Bp.get(), accumulate,
                g.dX.data.data(), threads, {st, &backward_breakdown::input_grad});
        accumulate = true;
    }
    if (st) {
        backward_breakdown& b = *o.backward_times;
        b = {};
        for (const backward_breakdown& w : times) b += w;
        b.threads = threads;
        b.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    }
    return g;
}

backward_breakdown& backward_breakdown::operator+=(const backward_breakdown& b) {
    output_grad += b.output_grad, weight_grads += b.weight_grads, input_grad += b.input_grad;
    row_dots += b.row_dots, copies += b.copies, scores += b.scores, dP += b.dP, exps += b.exps;
    dV += b.dV, dK += b.dK, dQ += b.dQ;
    return *this;
}

std::size_t backward_extra_floats(std::size_t n, std::size_t d, const options& o) {
    // dO (dQ, dK and dV are made in what the forward kept); the packed operand; a slice of Xᵀ or Oᵀ
    // (or a transposed weight); the core's own
    return n * d + detail::packed_floats(std::max(chunk, d), d) + d * std::max(chunk, d) +
           core_extra_floats(core_of(n, d, o));
}

}  // namespace qkv::attention
