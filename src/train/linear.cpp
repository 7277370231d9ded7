// The model's matrix products, forward and backward, each one call through blas::gemm_raw.
#include "qkv/linear.hpp"

#include "qkv/blas.hpp"

namespace qkv::train {

using blas::trans;

void matmul_forward(float* out, const float* inp, const float* W, std::size_t N, std::size_t K, std::size_t M,
                    bool accumulate) {
    // out (N, M) = inp (N, K) @ W (K, M): m = N, n = M, k = K, every matrix dense
    blas::gemm_raw(N, M, K, 1.0f, inp, K, W, M, trans::no, accumulate ? 1.0f : 0.0f, out, M);
}

void matmul_backward(float* dinp, float* dW, const float* dout, const float* inp, const float* W, std::size_t N,
                     std::size_t K, std::size_t M, bool accumulate) {
    // dW (K, M) += inpᵀ (K, N) @ dout (N, M): A = inp read transposed
    blas::gemm_raw(K, M, N, 1.0f, inp, K, trans::yes, dout, M, trans::no, 1.0f, dW, M);
    // dinp (N, K) = dout (N, M) @ Wᵀ (M, K): B = W read transposed
    blas::gemm_raw(N, K, M, 1.0f, dout, M, W, M, trans::yes, accumulate ? 1.0f : 0.0f, dinp, K);
}

}  // namespace qkv::train
