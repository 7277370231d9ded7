// Scenario files (data/*.toml): the tokens and matrices a lesson runs on.
//
//   name = "苹果很甜"
//   tokens = ["苹果", "很", "甜"]
//   heads = 2                       # optional; must divide d_model
//   causal = true                   # optional: the weights were trained with the causal mask
//                                   #   (lesson 7), so no lesson may let a position see a later
//                                   #   one; the lessons run their stages' causal_formula
//   [matrices]
//   X = [[...], ...]                # [n, d_model]; or a CSV file beside the scenario: X = "x.csv"
//   W_Q = ...                       # [d_model, d_model], Q = X @ W_Q; W_K, W_V, W_O alike
//
// A second sequence, for cross-attention (queries from X, keys and values from the other one):
//   source_tokens = ["苹果", "很", "甜"]   # one per row of X_src
//   [matrices]
//   X_src = [[...], ...]            # [n_src, d_model]: the same width as X, so W_K and W_V apply
// Without one, the lessons see X_src = X (cross-attention of a sequence with itself is
// self-attention), so every lesson runs on every scenario.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "qkv/matrix.hpp"
#include "qkv/value.hpp"

namespace qkv {

struct toml_document;

struct scenario {
    std::string file;                      // where it was read from
    std::string name;
    std::vector<std::string> tokens;       // one per row of X
    std::vector<std::string> source_tokens;  // one per row of X_src; empty: no second sequence
    std::optional<std::size_t> heads;
    bool causal = false;                   // made under the causal mask: every lesson applies it
    std::map<std::string, matrix> matrices;  // X, W_Q, W_K, W_V, W_O, ... as given
};

// Read and check a scenario: every key of the right type, X present with one row per token, every
// matrix rectangular and finite, W_Q, W_K, W_V and W_O (each optional) [d_model, d_model], heads
// dividing d_model. Throws input_error with file:line. A bare name (no '/', no '.') that is no file
// here names a scenario of the data folder: `--data induction` reads data/induction.toml.
scenario load_scenario(const std::string& path);
// The same on a file already read.
scenario read_scenario(const toml_document& doc);

// The workspace a lesson starts from: every matrix under its own name (X rows labelled with the
// tokens; X_src's with the source tokens, or X itself when there is no second sequence), and
// the scalars n, d_model, causal (1 or 0) and (when heads is given) h.
workspace initial_workspace(const scenario& s);

// The key of a scenario file that gives the workspace a name other than a matrix ("heads" gives
// h), or nullptr: a lesson that reads h on a scenario without heads is told what to write.
const char* scenario_key_of(const std::string& name);

}  // namespace qkv
