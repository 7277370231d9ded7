// Every weight of the model in one allocation, and the table that says which tensor lives where:
// E [V, C], P [T, C], then per layer W_Q, W_K, W_V, W_O [C, C], then U [C, V]. Gradients and
// Adam's two moments are further allocations with the same table, so an update is one loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "qkv/train_config.hpp"

namespace qkv::train {

// One tensor of the table: its name ("E", "W_Q" …), the layer it belongs to (1 … L; 0 for E, P
// and U), its shape and where it starts in the allocation.
struct tensor_spec {
    std::string name;
    std::size_t layer = 0;
    std::size_t rows = 0, cols = 0;
    std::size_t offset = 0;

    std::size_t size() const { return rows * cols; }
    // "E", "layer1.W_Q", "U": the name the saved file and the PyTorch script use
    std::string full_name() const;
};

// The table for a model of this size, in the order above.
std::vector<tensor_spec> parameter_table(const model_size& s);

// Where each tensor of one layer starts: the forward and backward passes read these.
struct layer_weights {
    float* W_Q;  // [C, C]; head h uses columns h·d_k … (h+1)·d_k − 1, as the scenarios do
    float* W_K;  // [C, C]
    float* W_V;  // [C, C]
    float* W_O;  // [C, C]; rows h·d_k … take head h's output
};

struct model_weights {
    float* E;  // [V, C] token embeddings
    float* P;  // [T, C] position embeddings
    std::vector<layer_weights> layer;  // L of them
    float* U;  // [C, V] unembedding
};

// One flat buffer with the table's layout (the weights, or their gradients, or a moment).
class parameters {
public:
    parameters() = default;
    explicit parameters(const model_size& s);

    const model_size& size() const { return size_; }
    const std::vector<tensor_spec>& table() const { return table_; }
    std::vector<float>& data() { return data_; }
    const std::vector<float>& data() const { return data_; }
    model_weights weights();  // pointers into data(), valid while this object lives unmoved

private:
    model_size size_;
    std::vector<tensor_spec> table_;
    std::vector<float> data_;
};

// E from N(0, embedding²), P from N(0, position²), the projections and U from N(0, gain² / d_model),
// each tensor from its own stream of the seed, so the same seed gives the same weights on every
// machine.
void initialise(parameters& p, float embedding, float position, float gain, std::uint64_t seed);

}  // namespace qkv::train
