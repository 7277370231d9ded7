// --step: one stage at a time. On a terminal that takes escapes, one stage per screen with its
// head pinned and its body scrolled (stepper_screen.hpp); otherwise the stage is printed and the
// keys Enter or n next, b back, g K go to stage K, r redraw, h help, q quit are read one at a time
// (stdin a terminal) or a line at a time (a pipe or file, where end of input quits cleanly).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "qkv/render.hpp"
#include "qkv/trace.hpp"

namespace qkv {

// Where the stepper reads and writes.
struct stepper_io {
    int in_fd = 0;
    std::FILE* out = stdout;
};

// Step through the stages of every trace in order, starting at stage `start` (from 0).
// Returns the exit status: 0 on q or end of input or past the last stage, 130 on Ctrl-C as a key,
// 141 when the output has gone.
int run_stepper(const std::vector<trace>& traces, const render_options& o, const stepper_io& io, std::size_t start = 0);

}  // namespace qkv
