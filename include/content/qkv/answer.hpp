// Reading a learner's answer: a choice, a shape, a number or a matrix, in the spellings people
// actually type ("(100, 100)", "100x100", "1/4", "[[1, 2], [3, 4]]", a numpy.savetxt file).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/i18n.hpp"
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

// Each throws input_error with one line, in the language, saying why the text cannot be read
// ("abc" is not a shape: ...); the caller adds which exercise it was for. Every one first reads
// full-width characters as their ASCII twins (typed_ascii).

// "Ｂ，（１００，１００）、" -> "B,(100,100),": full-width letters, digits and punctuation, 、 and the
// ideographic space, as typed on a Chinese keyboard.
std::string typed_ascii(std::string_view text);

// One letter among the first `count` of A, B, C, D; case does not matter, nor "(b)", "B)", "B.".
char parse_choice(std::string_view text, int count = 4, lang l = lang::en);
// "(100, 100)", "[100, 100]", "100x100", "100×100", "100 100", "100*100", "torch.Size([100, 100])":
// positive integers.
std::vector<std::size_t> parse_shape(std::string_view text, lang l = lang::en);
// "0.25", "1/4", "2.5e-1", "-.5": finite.
double parse_number(std::string_view text, lang l = lang::en);
// "[[1, 2], [3, 4]]", one row "[1, 2, 3]", numpy's printout "[[1. 2.]\n [3. 4.]]" or
// "array([[1., 2.]], dtype=float32)", or CSV text "1, 2\n3, 4" (as numpy.savetxt writes it).
matrix parse_matrix(std::string_view text, lang l = lang::en);

answer parse_answer(answer_kind k, std::string_view text, lang l = lang::en);
// A file: CSV for a matrix (csv.hpp), else its text with the surrounding blanks trimmed.
answer read_answer_file(answer_kind k, const std::string& path, lang l = lang::en);
// A file a grade sheet names for an answer: `name` inside the sheet's folder `dir`, never outside it
// (no absolute name, no "..", no symbolic link on the way: file_read.hpp's open_inside). Errors name
// the file as the sheet wrote it.
answer read_answer_beside(answer_kind k, const std::string& dir, const std::string& name, lang l = lang::en);

// "[100, 100]": how qkv writes a shape back.
std::string shape_text(const std::vector<std::size_t>& shape);

}  // namespace qkv
