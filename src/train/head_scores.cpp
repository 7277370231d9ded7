// The scores of a head's attention pattern, the held-out probe, and the heads a run names.
#include "qkv/head_scores.hpp"

#include <algorithm>

namespace qkv::train {

float previous_token_score(const matrix& A) {
    if (A.rows < 2) return 0.0f;
    double sum = 0.0;
    for (std::size_t i = 1; i < A.rows; ++i) sum += A(i, i - 1);
    return static_cast<float>(sum / double(A.rows - 1));
}

float induction_score(const matrix& A, const repeat_span& r) {
    double sum = 0.0;
    for (std::size_t k = 0; k < r.length; ++k) sum += A(r.second + k, r.first + k + 1);
    return r.length ? static_cast<float>(sum / double(r.length)) : 0.0f;
}

float source_score(const matrix& A, task t, std::span<const int> tokens, const repeat_span& r) {
    const prediction_range range = predictable(t, r);
    double sum = 0.0;
    for (std::size_t p = range.from; p < range.to; ++p) sum += A(p, source_of(t, tokens, r, p));
    return range.to > range.from ? static_cast<float>(sum / double(range.to - range.from)) : 0.0f;
}

namespace {

// The two losses of the batch whose forward pass `a` holds.
batch_loss losses_of(const activations& a, task t, const batch& b) {
    const std::size_t T = b.seq;
    double all = 0.0, repeated = 0.0;
    std::size_t predictable_count = 0;
    for (std::size_t q = 0; q < b.count; ++q) {
        for (std::size_t p = 0; p + 1 < T; ++p) all += a.losses[q * T + p];
        const prediction_range r = predictable(t, b.spans[q]);
        for (std::size_t p = r.from; p < r.to; ++p) repeated += a.losses[q * T + p];
        predictable_count += r.to - r.from;
    }
    return {static_cast<float>(all / double(b.count * (T - 1))),
            predictable_count ? static_cast<float>(repeated / double(predictable_count)) : 0.0f};
}

}  // namespace

probe_result probe(const train_config& c, parameters& w, const batch& seq, const head_mask* ablated) {
    const model_size& s = c.size;
    const std::size_t T = s.seq;
    activations a(s, 1);
    model_forward(a, w.weights(), s, seq.tokens.data(), ablated);
    probe_result out;
    const repeat_span& r = seq.spans[0];
    for (std::size_t l = 0; l < s.layers; ++l)
        for (std::size_t h = 0; h < s.heads; ++h) {
            head_view v{l + 1, h + 1, matrix(T, T), 0, 0, 0};
            const float* A = &a.A[(l * s.heads + h) * T * T];
            std::copy_n(A, T * T, v.A.data.begin());
            v.previous_token = previous_token_score(v.A);
            v.induction = induction_score(v.A, r);
            v.source = source_score(v.A, c.what, seq.tokens, r);
            out.heads.push_back(std::move(v));
        }
    const batch_loss l = losses_of(a, c.what, seq);
    out.loss = l.loss, out.loss_repeated = l.loss_repeated;
    return out;
}

batch_loss measure(const train_config& c, parameters& w, const batch& b, const head_mask* ablated) {
    activations a(c.size, b.count);
    model_forward(a, w.weights(), c.size, b.tokens.data(), ablated);
    return losses_of(a, c.what, b);
}

layer_export export_layer(const train_config& c, parameters& w, const batch& seq, std::size_t layer) {
    const std::size_t T = c.size.seq, C = c.size.d_model;
    activations a(c.size, 1);
    const model_weights mw = w.weights();
    model_forward(a, mw, c.size, seq.tokens.data());
    const layer_weights& lw = mw.layer.at(layer - 1);
    auto square = [C](const float* W) { return matrix(C, C, std::vector<float>(W, W + C * C)); };
    const float* X = &a.X[(layer - 1) * T * C];
    return {matrix(T, C, std::vector<float>(X, X + T * C)), square(lw.W_Q), square(lw.W_K), square(lw.W_V), square(lw.W_O)};
}

named_heads name_heads(const std::vector<head_view>& heads, std::size_t layers) {
    named_heads n;
    float best_prev = -1, best_ind = -1, best_src = -1;
    for (const head_view& v : heads) {
        if ((layers == 1 || v.layer < layers) && v.previous_token > best_prev)
            best_prev = v.previous_token, n.previous_token[0] = v.layer, n.previous_token[1] = v.head;
        if ((layers == 1 || v.layer > 1) && v.induction > best_ind)
            best_ind = v.induction, n.induction[0] = v.layer, n.induction[1] = v.head;
        if (v.source > best_src) best_src = v.source, n.source[0] = v.layer, n.source[1] = v.head;
    }
    return n;
}

}  // namespace qkv::train
