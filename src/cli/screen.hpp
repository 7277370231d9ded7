// --step and --present as a command runs them: on the console's terminal, or, for a console with
// no descriptors (a test's strings), drawn into memory and printed to its out. Private to src/cli.
#pragma once

#include <cstddef>
#include <vector>

#include "qkv/cli.hpp"
#include "qkv/render.hpp"
#include "qkv/trace.hpp"

namespace qkv::cli {

struct screen_choice {
    bool present = false;     // the presenter; else the stepper
    double auto_seconds = 0;  // --auto, for the presenter
    std::size_t start = 0;    // the stage shown first, from 0
};

// Runs the stepper or the presenter on the traces; returns its exit status. Keys come from the
// console's in_fd; without one there are none, as at the end of input.
int run_screen(const console& io, const std::vector<trace>& traces, const render_options& o, const screen_choice& how);

}  // namespace qkv::cli
