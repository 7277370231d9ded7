// What a `qkv bench` measurement is asked to do (forward, backward, KV-cache decoding), as the
// command read it from its options. Each result carries its setup, so that a report words its
// header from the result alone.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qkv/attention.hpp"

namespace qkv::bench {

struct setup {
    std::vector<std::size_t> sizes;         // n, in the order given (forward and backward)
    std::vector<attention::impl> impls;     // forward: the implementations, in the order given
    std::size_t d_model = 512, heads = 8;
    std::size_t tokens = 2048;              // decoding: the tokens decoded one at a time
    int threads = 1;                        // the reference runs on one whatever this says
    int repeats = 0;                        // timed runs per size; 0: as many as a stable median needs
    bool causal = false;
    bool breakdown = false;                 // also where the fused passes' time went (one more run each)
    std::string dump_dir;                   // also X, the weights and the outputs as .npy files ("": not)
    std::size_t d_k() const { return d_model / heads; }
};

// The options the forward implementation `which` runs with: the reference on one thread.
inline attention::options options_for(const setup& s, attention::impl which) {
    attention::options o;
    o.heads = s.heads;
    o.causal = s.causal;
    o.threads = which == attention::impl::reference ? 1 : s.threads;
    return o;
}

}  // namespace qkv::bench
