// The built-ins of the lessons beyond the core pipeline (0 and 9–14): processes that are taught
// step by step (an RNN, a KV-cache decode, tiled softmax), low-rank tools (SVD, random features)
// and positions. builtins.cpp appends them to the one table.
#pragma once

#include <vector>

#include "qkv/builtins.hpp"

namespace qkv {

std::vector<builtin> beyond_builtins();

}  // namespace qkv
