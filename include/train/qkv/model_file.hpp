// The saved model (`qkv train --save FILE`, read back by --load and bench/compare_train_torch.py):
//
//   qkv-model 1\n                          a first line: the format and its version
//   {"config": {...}, "steps_done": N,     one line of JSON: the configuration the model was made
//    "tensors": [{"name": "E", "shape":     with (sizes, task, initialisation, Adam, seed), how many
//    [V, C], "offset": 0}, ...]}\n           steps it has taken, and the parameter table
//   <float32 little-endian, every tensor    then the weights, tensor after tensor in the table's
//    in table order, row-major>             order, offsets counted in floats
//
// Adam's moments are not saved: a loaded model starts a fresh optimizer (and warm-up), while the
// batches go on from step N + 1. A file of another version, a table that does not match the
// configuration, a short file or a weight that is not a finite number is refused in one line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "qkv/parameters.hpp"
#include "qkv/train_config.hpp"

namespace qkv::train {

constexpr int model_file_version = 1;

// The most steps a model may have taken, so that steps_done + --steps never wraps: 2^53 (at 10⁷
// steps a run, the most --steps allows, 9·10⁸ runs).
constexpr std::size_t max_steps_done = std::size_t{1} << 53;

// The configuration as JSON fields ({"task": "induction", "vocab": 24, …}), for the file and for
// `qkv train --format json`'s "config".
std::string config_json(const train_config& c);

std::string model_bytes(const train_config& c, const parameters& w, std::size_t steps_done);

struct loaded_model {
    train_config config;
    parameters weights;
    std::size_t steps_done = 0;
};

// `name` is the file's name, for the one-line errors (input_error).
loaded_model read_model(std::string_view bytes, const std::string& name);

// The model file at `path` (--load), refused in one line naming it when it is not a regular file
// (a FIFO would block for ever, a folder gave the C++ library's words without the name), is bigger
// than any model (its weights at most max_cells floats, and a header) or is not a model.
loaded_model read_model_file(const std::string& path);

}  // namespace qkv::train
