// What `qkv train` trains and how: the model's sizes, the task, the initialisation and Adam's
// settings, each with the default the README documents; and the one check that they fit together.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace qkv::train {

// What the sequences hold, and so what the heads must learn to do. Each has its entry in the tasks'
// table (tasks.hpp), which everything that differs between them reads.
enum class task {
    induction,  // random tokens; a random segment repeated later (an induction head predicts the copy)
    reverse,    // m random tokens, then the same m backwards (a head looks at the mirrored position)
    copy,       // m random tokens, then the same m again (solved by position alone, no induction head)
};

std::string_view task_name(task t);
// A name of the tasks' table ("induction", "reverse", "copy"); false for anything else.
bool parse_task(std::string_view name, task& out);

// The attention-only transformer: x_i = E[t_i] + P[i]; each layer adds Σ_heads softmax(causal(Q Kᵀ
// / √d_k)) V W_O to the residual stream; logits = X U. No bias, no MLP, no layer norm.
struct model_size {
    std::size_t vocab = 24;    // V: tokens 0 … V − 1
    std::size_t seq = 24;      // T: positions per sequence (P has T rows)
    std::size_t d_model = 32;  // C
    std::size_t heads = 2;     // H per layer; d_k = C / H
    std::size_t layers = 2;    // L

    std::size_t d_k() const { return d_model / heads; }
};

// Adam as PyTorch's torch.optim.Adam computes it (ε added to √v̂, no weight decay), the learning
// rate rising linearly over the first `warmup` steps, and the gradient's global norm clipped.
struct optimizer_config {
    float lr = 2e-3f;
    float beta1 = 0.9f;
    float beta2 = 0.999f;
    float eps = 1e-8f;
    std::size_t warmup = 100;  // steps; 0: the full rate from the first step
    float clip = 1.0f;         // the largest global gradient norm; 0: no clipping
};

struct train_config {
    task what = task::induction;
    model_size size;
    std::size_t batch = 32;        // sequences per step
    std::size_t steps = 4000;
    std::size_t segment_min = 0;   // induction: the repeated segment's length, drawn per sequence
    std::size_t segment_max = 0;   // from [min, max]; 0: the defaults of resolve_segments
    float init_embedding = 1.0f;   // E ~ N(0, s²)
    float init_position = 0.5f;    // P ~ N(0, s²)
    float init_gain = 0.5f;        // W_Q, W_K, W_V, W_O and U ~ N(0, g² / d_model)
    optimizer_config adam;
    std::uint64_t seed = 1;
    int threads = 1;
};

// The segment lengths an induction sequence of `seq` positions draws from when none are given:
// 4 … (seq − 4) / 2, so that two copies of the longest leave four random tokens around them
// (4 … 10 at seq = 24); shorter sequences take what fits.
void resolve_segments(train_config& c);

// Every size and setting checked together; throws input_error with one line naming the option:
// "--heads 3 does not divide --d-model 32", "--seq 200 is more than …", a learning rate that is
// not a positive number, a vocabulary too small for the held-out sequence's distinct segment.
void check_config(const train_config& c);

// The parameter count: V·C + T·C + L·4·C² + C·V.
std::size_t parameter_count(const model_size& s);

// The flops of one training step, about: the forward pass of every sequence of the batch (per layer
// the four projections 8·T·C², the scores and the weighted values 4·T²·C; the unembedding 2·T·C·V),
// and the backward pass, twice the forward's. For a run's work stated before it starts.
double step_flops(const train_config& c);

}  // namespace qkv::train
