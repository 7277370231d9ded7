// A model in training: its weights, their gradients, Adam's state and the activations of each
// share of the batch. step() is forward, backward and update, in that order; the batch is split
// into `threads` contiguous shares, each with its own gradients, added up in share order, so a
// seed and a thread count give the same run every time.
#pragma once

#include <cstddef>
#include <vector>

#include "qkv/adam.hpp"
#include "qkv/model.hpp"
#include "qkv/parameters.hpp"
#include "qkv/task_data.hpp"
#include "qkv/train_config.hpp"

namespace qkv::train {

// What one step measured: the loss averaged over every prediction of the batch, the same over the
// predictions its task makes predictable (the repeated copy's), and the learning rate it used.
struct step_record {
    std::size_t step = 0;
    float loss = 0, loss_repeated = 0, lr = 0;
    double grad_norm = 0;
};

class trainer {
public:
    // Fresh weights from c.seed; c must have passed check_config.
    explicit trainer(const train_config& c);
    // Weights as given (a loaded model), `done` steps already taken: the batches go on from there.
    trainer(const train_config& c, parameters weights, std::size_t done);

    step_record step();
    // forward and backward of one batch without an update: the loss, and the gradients in grads()
    step_record gradients_of(const batch& b);

    std::size_t steps_done() const { return done_; }
    const batch& last_batch() const { return last_; }  // the batch of the last step()
    const train_config& config() const { return config_; }
    parameters& weights() { return weights_; }
    const parameters& weights() const { return weights_; }
    const parameters& grads() const { return grads_; }

private:
    struct share {
        std::size_t first, count;  // sequences of the batch
        activations act;
        parameters grads;  // share 0 adds into the trainer's own
    };

    train_config config_;
    parameters weights_, grads_;
    adam_state adam_;
    std::vector<share> shares_;
    std::size_t done_ = 0;
    batch last_;
};

}  // namespace qkv::train
