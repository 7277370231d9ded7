// --present: the classroom view. Full screen, one stage per screen (present_frame.hpp lays it
// out in the frame of screen_frame.hpp). The keys are navigation.hpp's; --auto advances by
// itself (p pauses).
#pragma once

#include <cstddef>
#include <vector>

#include "qkv/render.hpp"
#include "qkv/trace.hpp"

namespace qkv {

struct presenter_options {
    double auto_seconds = 0;  // > 0: advance by itself after this long on a stage
    int in_fd = 0;
    int out_fd = 1;
};

// Run the presenter on every stage of every trace, from stage `start` (from 0). On a terminal the
// screen is taken over and given back on every way out; with input from a pipe the same letters
// are read a line at a time. Returns the exit status: 0 on q or end of input, 130 on Ctrl-C, 141
// when the output has gone (as --step does).
int run_presenter(const std::vector<trace>& traces, const render_options& o, const presenter_options& p,
                  std::size_t start = 0);

}  // namespace qkv
