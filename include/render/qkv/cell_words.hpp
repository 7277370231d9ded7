// A cell's origin (cell_origin.hpp) in words, line by line, as a browser shows it when a learner
// points at the number: the cell, the formula at that cell, the terms written out, and what they
// come to. Reads the origin; computes no number.
#pragma once

#include <string>
#include <vector>

#include "qkv/cell_origin.hpp"
#include "qkv/step_cell.hpp"
#include "qkv/render.hpp"

namespace qkv {

// At most this many terms of a sum are written out; the rest are counted ("… 60 more").
inline constexpr std::size_t cell_terms_written = 8;

std::vector<std::string> cell_words(const cell_origin& c, const render_options& o);

// A recorded step's cell: the value at that step, the step before, and the tiled softmax's
// recurrence that made m, rescale or l.
std::vector<std::string> step_cell_words(const step_cell& c, const render_options& o);

}  // namespace qkv
