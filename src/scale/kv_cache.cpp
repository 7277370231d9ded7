// Decoding with a KV cache (kv_cache.hpp): prefill the cache, then one token a step. Letters:
// t tokens so far, d = d_model, d_k = d / heads.
#include "qkv/kv_cache.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "qkv/blas.hpp"
#include "qkv/row_kernels.hpp"

namespace qkv::attention {

namespace {

using blas::trans;
using detail::exp2_row;

}  // namespace

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
        blas::gemm_raw(1, t, d_k, std::numbers::log2e_v<float> / std::sqrt(float(d_k)), q.data.data() + c0, d, cache.K.data.data() + c0, d,
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
