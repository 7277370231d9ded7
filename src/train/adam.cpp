// Warm-up, global-norm clipping and Adam over the one allocation of weights.
#include "qkv/adam.hpp"

#include <algorithm>
#include <cmath>

namespace qkv::train {

namespace {

// Keeps 1 / (norm + δ) finite when every gradient is 0; the value torch.nn.utils.clip_grad_norm_ adds.
constexpr double clip_delta = 1e-6;

}  // namespace

float learning_rate(const optimizer_config& o, std::size_t step) {
    if (o.warmup == 0 || step >= o.warmup) return o.lr;
    return o.lr * static_cast<float>(step) / static_cast<float>(o.warmup);
}

update_report adam_update(std::vector<float>& w, std::vector<float>& g, adam_state& s, const optimizer_config& o,
                          std::size_t step) {
    if (s.m.size() != w.size()) s.m.assign(w.size(), 0.0f), s.v.assign(w.size(), 0.0f);
    update_report r{learning_rate(o, step), 0.0};
    double squares = 0.0;
    for (float x : g) squares += double(x) * double(x);
    r.grad_norm = std::sqrt(squares);
    if (o.clip > 0.0f && r.grad_norm > 0.0) {
        const double coef = double(o.clip) / (r.grad_norm + clip_delta);
        if (coef < 1.0)
            for (float& x : g) x = static_cast<float>(x * coef);
    }
    ++s.t;
    // PyTorch's form: step_size = lr / (1 − β₁ᵗ), denominator √v / √(1 − β₂ᵗ) + ε
    // (in double, as Python computes them there)
    const double t = static_cast<double>(s.t);
    const auto step_size = static_cast<float>(double(r.lr) / (1.0 - std::pow(double(o.beta1), t)));
    const auto bias2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(double(o.beta2), t)));
    for (std::size_t i = 0; i < w.size(); ++i) {
        s.m[i] = o.beta1 * s.m[i] + (1.0f - o.beta1) * g[i];
        s.v[i] = o.beta2 * s.v[i] + (1.0f - o.beta2) * g[i] * g[i];
        w[i] -= step_size * s.m[i] / (std::sqrt(s.v[i]) / bias2_sqrt + o.eps);
    }
    return r;
}

}  // namespace qkv::train
