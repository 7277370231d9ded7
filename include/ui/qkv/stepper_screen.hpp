// --step on a full terminal: one stage per screen, the lesson, the stage counter and title and the
// formula pinned at the top, the text renderer's output for the stage scrolling under them, the
// keys at the bottom; resizes and fg redraw, h shows every key.
#pragma once

#include <cstddef>
#include <vector>

#include "qkv/render.hpp"
#include "qkv/trace.hpp"

namespace qkv {

// Run on in_fd and out_fd, both terminals; returns as run_stepper does.
int run_stepper_screen(const std::vector<trace>& traces, const render_options& o, int in_fd, int out_fd,
                       std::size_t start);

}  // namespace qkv
