// Reading a learner's answer: a choice, a shape, a number or a matrix, in the spellings people
// actually type ("(100, 100)", "100x100", "1/4", "[[1, 2], [3, 4]]", a numpy.savetxt file).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/matrix.hpp"

namespace qkv {

enum class answer_kind { choice, shape, number, matrix };

// "choice", "shape", "number", "matrix"
std::string_view kind_name(answer_kind k);
std::optional<answer_kind> parse_kind(std::string_view s);

struct answer {
    answer_kind kind = answer_kind::choice;
    char choice = 0;                   // 'A'..'D'
    std::vector<std::size_t> shape;    // e.g. {100, 100}
    double number = 0.0;
    matrix m;                          // [r, c]
};

// Each throws input_error with one line saying why the text cannot be read ("abc" is not a
// shape: ...); the caller adds which exercise it was for.

// One letter among the first `count` of A, B, C, D; case does not matter.
char parse_choice(std::string_view text, int count = 4);
// "(100, 100)", "[100, 100]", "100x100", "100×100", "100 100", "100*100": positive integers.
std::vector<std::size_t> parse_shape(std::string_view text);
// "0.25", "1/4", "2.5e-1", "-.5": finite.
double parse_number(std::string_view text);
// "[[1, 2], [3, 4]]", one row "[1, 2, 3]", or CSV text "1, 2\n3, 4" (as numpy.savetxt writes it).
matrix parse_matrix(std::string_view text);

answer parse_answer(answer_kind k, std::string_view text);
// A file: CSV for a matrix (csv.hpp), else its text with the surrounding blanks trimmed.
answer read_answer_file(answer_kind k, const std::string& path);

// "[100, 100]": how qkv writes a shape back.
std::string shape_text(const std::vector<std::size_t>& shape);

}  // namespace qkv
