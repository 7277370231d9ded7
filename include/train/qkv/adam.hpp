// One update of every weight: the learning rate of this step (after warm-up), the gradient clipped
// to a global norm, then Adam as torch.optim.Adam computes it, so the PyTorch rebuild matches.
#pragma once

#include <cstddef>
#include <vector>

#include "qkv/train_config.hpp"

namespace qkv::train {

// Adam's first and second moments, one per weight, and the number of updates made.
struct adam_state {
    std::vector<float> m, v;
    std::size_t t = 0;
};

// lr · min(1, step / warmup) for step 1, 2, …: the rate rises linearly, then stays.
float learning_rate(const optimizer_config& o, std::size_t step);

struct update_report {
    float lr = 0;         // the rate used
    double grad_norm = 0; // the gradient's global norm before clipping
};

// g is scaled down when its norm exceeds o.clip (by clip / (norm + 1e-6), as
// torch.nn.utils.clip_grad_norm_ does), then w ← w − lr_t · m̂ / (√v̂ + ε).
update_report adam_update(std::vector<float>& w, std::vector<float>& g, adam_state& s, const optimizer_config& o,
                          std::size_t step);

}  // namespace qkv::train
