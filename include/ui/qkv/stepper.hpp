// --step: one stage at a time. Enter or n next, b back, g K go to stage K, r redraw, h help, q quit.
// On a terminal single keys work; otherwise the same letters are read a line at a time, and end of
// input quits cleanly.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "qkv/render.hpp"
#include "qkv/trace.hpp"

namespace qkv {

// Where the stepper reads and writes.
struct stepper_io {
    int in_fd = 0;
    std::FILE* out = stdout;
    bool clear_screen = false;  // clear before each stage (only when out is a terminal)
};

// Step through the stages of every trace in order, starting at stage `start` (from 0).
// Returns the exit status: 0 on q or end of input or past the last stage.
int run_stepper(const std::vector<trace>& traces, const render_options& o, const stepper_io& io, std::size_t start = 0);

}  // namespace qkv
