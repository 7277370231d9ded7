// Matrices in text files, as numpy.savetxt writes them: one row per line, numbers separated by
// commas or whitespace, '#' comments and blank lines ignored.
#pragma once

#include <string>
#include <string_view>

#include "qkv/matrix.hpp"

namespace qkv {

// Throws input_error with file:line on a ragged row, a non-number, NaN or Inf, or no rows.
matrix read_csv_matrix(const std::string& path);

// The same from text already in memory (`origin` names it in errors).
matrix parse_csv_matrix(std::string_view text, const std::string& origin);

}  // namespace qkv
