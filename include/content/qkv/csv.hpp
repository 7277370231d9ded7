// Matrices in text files, as numpy.savetxt writes them: one row per line, numbers separated by
// commas or whitespace, '#' comments and blank lines ignored.
#pragma once

#include <cstdint>

#include <string>
#include <string_view>

#include "qkv/matrix.hpp"

namespace qkv {

// The most a matrix file may hold, checked before it is read: 128 MiB of text, some 1.6·10⁷
// numbers (a 4096 × 4096 matrix written as numpy.savetxt writes it), past any run's use.
constexpr std::uint64_t max_csv_bytes = std::uint64_t{128} << 20;

// Throws input_error with file:line on a ragged row, a non-number, NaN or Inf, or no rows; and,
// naming the file, on one larger than max_csv_bytes.
matrix read_csv_matrix(const std::string& path);

// The same from text already in memory (`origin` names it in errors).
matrix parse_csv_matrix(std::string_view text, const std::string& origin);

}  // namespace qkv
