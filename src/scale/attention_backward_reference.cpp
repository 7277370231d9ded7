// The backward pass by the lessons' formulas (attention_backward.hpp), one plain kernel each and
// the whole n × n weights of every head: what the fused backward is held to.
#include <cmath>

#include "qkv/attention_backward.hpp"
#include "qkv/kernels.hpp"
#include "reference_heads.hpp"

namespace qkv::attention {

namespace {

using namespace kernels;
using detail::columns;
using detail::put_columns;

matrix plus(matrix A, const matrix& B) {
    for (std::size_t i = 0; i < A.size(); ++i) A.data[i] += B.data[i];
    return A;
}

// dS = A ⊙ (dA − rowsum(dA ⊙ A)) / sqrt(d_k): through the softmax and the scale of the scores
matrix softmax_back(const matrix& A, const matrix& dA, float scale) {
    matrix dS(A.rows, A.cols);
    for (std::size_t i = 0; i < A.rows; ++i) {
        double dot = 0;
        for (std::size_t j = 0; j < A.cols; ++j) dot += double(dA(i, j)) * A(i, j);
        for (std::size_t j = 0; j < A.cols; ++j) dS(i, j) = float(A(i, j) * (dA(i, j) - dot)) * scale;
    }
    return dS;
}

}  // namespace

gradients backward_reference(const matrix& X, const weights& W, const matrix& dZ, const options& o) {
    const detail::reference_heads heads = detail::project_heads(X, W, o);
    const std::size_t n = X.rows, d = X.cols, d_k = heads.d_k;
    matrix Zc(n, d), dQ(n, d), dK(n, d), dV(n, d);         // heads side by side
    const matrix dZc = matmul_ref(dZ, transpose(W.W_O));  // [n, d]
    for (std::size_t i = 0; i < o.heads; ++i) {
        const auto [Q_i, K_i, V_i, A] = heads.at(i);
        put_columns(Zc, i * d_k, matmul_ref(A, V_i));
        const matrix dZ_i = columns(dZc, i * d_k, d_k);
        const matrix dS = softmax_back(A, matmul_ref(dZ_i, transpose(V_i)), heads.scale);  // [n, n]
        put_columns(dV, i * d_k, matmul_ref(transpose(A), dZ_i));
        put_columns(dQ, i * d_k, matmul_ref(dS, K_i));
        put_columns(dK, i * d_k, matmul_ref(transpose(dS), Q_i));
    }
    const matrix Xt = transpose(X);
    return {plus(plus(matmul_ref(dQ, transpose(W.W_Q)), matmul_ref(dK, transpose(W.W_K))), matmul_ref(dV, transpose(W.W_V))),
            matmul_ref(Xt, dQ), matmul_ref(Xt, dK), matmul_ref(Xt, dV), matmul_ref(transpose(Zc), dZ)};
}

}  // namespace qkv::attention
