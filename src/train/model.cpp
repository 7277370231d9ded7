// The model's forward and backward passes: embedding, L attention layers each added to the
// residual stream, the unembedding and the cross-entropy; the backward reads them in reverse.
#include "qkv/model.hpp"

#include <algorithm>

#include "qkv/attention_layer.hpp"
#include "qkv/cross_entropy.hpp"
#include "qkv/embedding.hpp"
#include "qkv/linear.hpp"

namespace qkv::train {

activations::activations(const model_size& s, std::size_t count_) : count(count_) {
    const std::size_t N = count * s.seq, C = s.d_model, L = s.layers;
    X.resize((L + 1) * N * C);
    Q.resize(L * N * C), K.resize(L * N * C), V.resize(L * N * C), Z.resize(L * N * C);
    A.resize(L * count * s.heads * s.seq * s.seq);
    lse.resize(L * count * s.heads * s.seq);
    probs.resize(N * s.vocab), losses.resize(N);
    dX.resize(N * C), dQ.resize(N * C), dK.resize(N * C), dV.resize(N * C), dZ.resize(N * C);
    dS.resize(s.seq * s.seq);
    dlogits.resize(N * s.vocab);
}

void model_forward(activations& a, const model_weights& w, const model_size& s, const int* tokens,
                   const head_mask* ablated) {
    const std::size_t T = s.seq, C = s.d_model, N = a.count * T, d_k = s.d_k();
    const attention_shape shape{a.count, T, C, s.heads};
    embedding_forward(a.X.data(), tokens, w.E, w.P, a.count, T, C);
    for (std::size_t l = 0; l < s.layers; ++l) {
        const float* X = &a.X[l * N * C];
        float* Q = &a.Q[l * N * C];
        float* K = &a.K[l * N * C];
        float* V = &a.V[l * N * C];
        float* Z = &a.Z[l * N * C];
        matmul_forward(Q, X, w.layer[l].W_Q, N, C, C);
        matmul_forward(K, X, w.layer[l].W_K, N, C, C);
        matmul_forward(V, X, w.layer[l].W_V, N, C, C);
        attention_forward(Z, &a.A[l * a.count * s.heads * T * T], &a.lse[l * a.count * s.heads * T], Q, K, V, shape);
        for (std::size_t h = 0; ablated && h < s.heads; ++h)
            if ((*ablated)[l * s.heads + h])
                for (std::size_t r = 0; r < N; ++r) std::fill_n(Z + r * C + h * d_k, d_k, 0.0f);
        // X_{l+1} = X_l + Z W_O: the layer adds to the residual stream
        float* next = &a.X[(l + 1) * N * C];
        std::copy_n(X, N * C, next);
        matmul_forward(next, Z, w.layer[l].W_O, N, C, C, true);
    }
    matmul_forward(a.probs.data(), &a.X[s.layers * N * C], w.U, N, C, s.vocab);
    cross_entropy_forward(a.losses.data(), a.probs.data(), tokens, a.count, T, s.vocab);
}

void model_backward(const model_weights& g, activations& a, const model_weights& w, const model_size& s,
                    const int* tokens, float scale) {
    const std::size_t T = s.seq, C = s.d_model, N = a.count * T;
    const attention_shape shape{a.count, T, C, s.heads};
    cross_entropy_backward(a.dlogits.data(), a.probs.data(), tokens, a.count, T, s.vocab, scale);
    // dX (N, C) = dlogits Uᵀ, dU += X_Lᵀ dlogits
    matmul_backward(a.dX.data(), g.U, a.dlogits.data(), &a.X[s.layers * N * C], w.U, N, C, s.vocab);
    for (std::size_t l = s.layers; l-- > 0;) {
        const float* X = &a.X[l * N * C];
        // X_{l+1} = X_l + Z W_O: dX passes to X_l unchanged, and on through W_O to Z
        matmul_backward(a.dZ.data(), g.layer[l].W_O, a.dX.data(), &a.Z[l * N * C], w.layer[l].W_O, N, C, C);
        const float *Q = &a.Q[l * N * C], *K = &a.K[l * N * C], *V = &a.V[l * N * C];
        if (fused_backward_pays(shape))
            attention_backward_fused(a.dQ.data(), a.dK.data(), a.dV.data(), a.dZ.data(), &a.Z[l * N * C],
                                     &a.lse[l * a.count * s.heads * T], Q, K, V, shape);
        else
            attention_backward(a.dQ.data(), a.dK.data(), a.dV.data(), a.dS.data(), a.dZ.data(),
                               &a.A[l * a.count * s.heads * T * T], Q, K, V, shape);
        matmul_backward(a.dX.data(), g.layer[l].W_Q, a.dQ.data(), X, w.layer[l].W_Q, N, C, C, true);
        matmul_backward(a.dX.data(), g.layer[l].W_K, a.dK.data(), X, w.layer[l].W_K, N, C, C, true);
        matmul_backward(a.dX.data(), g.layer[l].W_V, a.dV.data(), X, w.layer[l].W_V, N, C, C, true);
    }
    embedding_backward(g.E, g.P, a.dX.data(), tokens, a.count, T, C);
}

}  // namespace qkv::train
