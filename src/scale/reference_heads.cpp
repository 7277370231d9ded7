// The reference passes' shared head-by-head computation (reference_heads.hpp).
#include "reference_heads.hpp"

#include <algorithm>
#include <cmath>

#include "qkv/kernels.hpp"

namespace qkv::attention::detail {

using namespace kernels;

matrix columns(const matrix& M, std::size_t c0, std::size_t w) {
    matrix C(M.rows, w);  // C: [rows, w]
    for (std::size_t i = 0; i < M.rows; ++i) std::copy_n(M.row(i) + c0, w, C.row(i));
    return C;
}

void put_columns(matrix& M, std::size_t c0, const matrix& C) {
    for (std::size_t i = 0; i < C.rows; ++i) std::copy_n(C.row(i), C.cols, M.row(i) + c0);
}

reference_heads project_heads(const matrix& X, const weights& W, const options& o) {
    check_shapes(X, W, o);
    const std::size_t n = X.rows, d_k = X.cols / o.heads;
    return {d_k, 1.0f / std::sqrt(float(d_k)), matmul_ref(X, W.W_Q), matmul_ref(X, W.W_K), matmul_ref(X, W.W_V),
            o.causal ? causal_mask(n) : matrix(n, n)};
}

reference_head reference_heads::at(std::size_t i) const {
    reference_head h{columns(Q, i * d_k, d_k), columns(K, i * d_k, d_k), columns(V, i * d_k, d_k), {}};
    matrix S = matmul_ref(h.Q_i, transpose(h.K_i));  // S: [n, n]
    for (std::size_t r = 0; r < S.rows; ++r)
        for (std::size_t c = 0; c < S.cols; ++c) S(r, c) = S(r, c) * scale + mask(r, c);
    h.A = softmax_rows(S);
    return h;
}

}  // namespace qkv::attention::detail
