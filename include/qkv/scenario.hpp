// Scenario files (data/*.toml): the tokens and matrices a lesson runs on.
//
//   name = "苹果很甜"
//   tokens = ["苹果", "很", "甜"]
//   heads = 2                       # optional; must divide d_model
//   [matrices]
//   X = [[...], ...]                # [n, d_model]; or a CSV file beside the scenario: X = "x.csv"
//   W_Q = ...                       # [d_model, d_model], Q = X @ W_Q; W_K, W_V, W_O alike
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "qkv/matrix.hpp"
#include "qkv/value.hpp"

namespace qkv {

struct scenario {
    std::string file;                      // where it was read from
    std::string name;
    std::vector<std::string> tokens;       // one per row of X
    std::optional<std::size_t> heads;
    std::map<std::string, matrix> matrices;  // X, W_Q, W_K, W_V, W_O, ... as given
};

// Read and check a scenario: X present with one row per token, every matrix rectangular, finite,
// and W_* shaped [d_model, d_model]; heads divides d_model. Throws input_error with file:line.
scenario load_scenario(const std::string& path);

// The workspace a lesson starts from: every matrix under its own name (X rows labelled with the
// tokens), and the scalars n, d_model and (when heads is given) h.
workspace initial_workspace(const scenario& s);

}  // namespace qkv
