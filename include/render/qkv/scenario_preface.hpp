// The scenario file that --tokens generated, as `qkv lesson` prints it before the lesson: on a
// long sentence it would fill screens of its own, so it is cut to fit unless --full.
#pragma once

#include <string>
#include <string_view>

#include "qkv/render.hpp"

namespace qkv {

// The file as scenario_toml wrote it, whole with --full. Otherwise a matrix of more than eight
// rows keeps its first three and last two, a TOML comment between them saying how many are left
// out and how to get them, and a line of data wider than the screen (the tokens) is cut with "…".
// Comment lines stay whole: the first is the command to copy.
std::string scenario_preface(std::string_view toml, const render_options& o);

}  // namespace qkv
