// The training step: the batch's shares run forward and backward side by side, their gradients
// are added in a fixed order, and Adam updates the weights.
#include "qkv/trainer.hpp"

#include <algorithm>
#include <stdexcept>

#include "qkv/blas.hpp"
#include "qkv/parallel_for.hpp"

namespace qkv::train {

trainer::trainer(const train_config& c) : trainer(c, parameters(c.size), 0) {
    initialise(weights_, c.init_embedding, c.init_position, c.init_gain, c.seed);
}

trainer::trainer(const train_config& c, parameters weights, std::size_t done)
    : config_(c), weights_(std::move(weights)), grads_(c.size), done_(done) {
    const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(std::max(c.threads, 1)), c.batch);
    for (std::size_t k = 0, first = 0; k < n; ++k) {
        const std::size_t count = c.batch / n + (k < c.batch % n ? 1 : 0);
        shares_.push_back({first, count, activations(c.size, count), k == 0 ? parameters() : parameters(c.size)});
        first += count;
    }
}

step_record trainer::gradients_of(const batch& b) {
    if (b.count != config_.batch || b.seq != config_.size.seq)
        throw std::invalid_argument("trainer::gradients_of: a batch of another size than the configuration's");
    const model_size& s = config_.size;
    const std::size_t T = s.seq;
    const float scale = 1.0f / static_cast<float>(b.count * (T - 1));  // the loss is a mean over every prediction
    std::fill(grads_.data().begin(), grads_.data().end(), 0.0f);
    const model_weights w = weights_.weights();
    // OpenBLAS's own threads would only compete with the shares' at these sizes
    const blas::scoped_threads one(1);
    parallel_for(shares_.size(), config_.threads, [&](std::size_t k, int) {
        share& sh = shares_[k];
        parameters& g = k == 0 ? grads_ : sh.grads;
        if (k != 0) std::fill(g.data().begin(), g.data().end(), 0.0f);
        const int* tokens = &b.tokens[sh.first * T];
        model_forward(sh.act, w, s, tokens);
        model_backward(g.weights(), sh.act, w, s, tokens, scale);
    });
    for (std::size_t k = 1; k < shares_.size(); ++k)
        for (std::size_t i = 0; i < grads_.data().size(); ++i) grads_.data()[i] += shares_[k].grads.data()[i];
    // the losses, summed in double in sequence order
    double all = 0.0, repeated = 0.0;
    std::size_t repeated_count = 0;
    for (const share& sh : shares_)
        for (std::size_t q = 0; q < sh.count; ++q) {
            const float* loss = &sh.act.losses[q * T];
            for (std::size_t p = 0; p < T; ++p) all += loss[p];
            const prediction_range r = predictable(config_.what, b.spans[sh.first + q]);
            for (std::size_t p = r.from; p < r.to; ++p) repeated += loss[p];
            repeated_count += r.to - r.from;
        }
    step_record rec;
    rec.loss = static_cast<float>(all / double(b.count * (T - 1)));
    rec.loss_repeated = static_cast<float>(repeated_count ? repeated / double(repeated_count) : 0.0);
    return rec;
}

step_record trainer::step() {
    last_ = make_batch(config_, done_ + 1);
    step_record rec = gradients_of(last_);
    const update_report u = adam_update(weights_.data(), grads_.data(), adam_, config_.adam, adam_.t + 1);
    rec.step = ++done_;
    rec.lr = u.lr;
    rec.grad_norm = u.grad_norm;
    return rec;
}

}  // namespace qkv::train
