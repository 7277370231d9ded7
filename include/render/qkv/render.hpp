// What every renderer is told. Renderers read a trace and return text (JSON: a JSON value, or its
// text); none computes a number (row sums and the like are in the trace already).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qkv/i18n.hpp"

namespace qkv {

struct quote_source;  // quote.hpp

// How many colours the terminal announced: 24-bit only with COLORTERM=truecolor/24bit, the
// xterm-256color palette otherwise, and for the Linux console (TERM=linux) 16, where heatmaps
// use shade characters instead.
enum class color_depth { basic16, palette256, truecolor };

struct render_options {
    lang language = lang::en;
    bool color = false;      // terminal colours (text only)
    color_depth depth = color_depth::truecolor;  // which colours, when color is on
    int precision = 4;       // decimals shown
    bool full = false;       // never elide rows or columns
    bool every_step = false; // every sub-step a built-in recorded in full, not a summary of the
                             // rest (the stepper, which scrolls: --step pages through them)
    std::size_t width = 100; // the screen's columns: prose wraps and wide matrices elide (text)
    std::string preface;     // shown before the lessons: the scenario file --tokens made (TOML)
    std::size_t stacks_here = 1;  // stacks of heads in the stage being drawn: they share one screen
    std::size_t weights_here = 1;  // values of attention weights in the stage being drawn: likewise
    const std::vector<quote_source>* quoted_here = nullptr;  // where the stage's text quotes numbers:
                                                           // kept on the screen when summarising (text)
};

}  // namespace qkv
