// The right computation read at the wrong place (wrong_place.hpp): the answers a student gives by
// taking another row or column of the matrix the expected answer is read from, or its transpose.
#include "wrong_place.hpp"

#include <cmath>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "qkv/formula.hpp"
#include "qkv/kernels.hpp"

namespace qkv {
namespace {

// "A[3]" or "(A^T @ V)[1]" -> ("A", "3"); anything else (a whole value, "A[1, 3]") -> nullopt.
std::optional<std::pair<std::string, std::string>> row_read(std::string_view source) {
    while (!source.empty() && source.back() == ' ') source.remove_suffix(1);
    if (!source.ends_with(']')) return std::nullopt;
    int depth = 0;
    for (std::size_t i = source.size(); i-- > 0;) {
        if (source[i] == ']') ++depth;
        else if (source[i] == '[' && --depth == 0) {
            std::string_view index = source.substr(i + 1, source.size() - i - 2);
            if (i == 0 || index.find(',') != std::string_view::npos || index.find('[') != std::string_view::npos) return std::nullopt;
            return std::make_pair(std::string(source.substr(0, i)), std::string(index));
        }
    }
    return std::nullopt;
}

// Within the exercise's tolerance of the right answer: then it is no mistake at all.
bool near(const matrix& a, const matrix& b, double tolerance) {
    if (a.rows != b.rows || a.cols != b.cols) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(std::fabs(static_cast<double>(a.data[i]) - b.data[i]) <= tolerance)) return false;
    return true;
}

matrix row_of(const matrix& M, std::size_t r) {
    matrix out(1, M.cols);
    for (std::size_t c = 0; c < M.cols; ++c) out(0, c) = M(r, c);
    return out;
}

}  // namespace

std::vector<wrong_place> wrong_places(const exercise& e, const value& expected, workspace& ws, eval_context& ctx, lang language) {
    std::vector<wrong_place> out;
    auto add = [&](const char* id, matrix m, std::string where) {
        if (!near(m, expected.mat(), e.tolerance)) out.push_back({id, value::of(std::move(m)), std::move(where)});
    };
    if (e.kind != answer_kind::matrix || !expected.is_matrix()) return out;
    const matrix& want = expected.mat();
    auto read = row_read(e.expected_source);
    if (!read) {  // a whole matrix: its transpose, when it has the same shape and differs
        if (want.rows == want.cols && want.rows > 1) add("transposed", kernels::transpose(want), "");
        return out;
    }
    value base;
    try {
        base = evaluate(*parse_expression(read->first, e.where), ws, ctx);
    } catch (const input_error&) {
        return out;  // not a value of its own (a quote-only name): nothing to read elsewhere
    }
    if (!base.is_matrix() || want.rows != 1 || base.mat().cols != want.cols) return out;
    const matrix& M = base.mat();
    // "row 2 (“很”) of dV": where the answer was read, the token in quotes as exercises write tokens
    auto place = [&](const labels& l, std::size_t i, std::string_view message) {
        const std::string name = i < l.names.size() && !l.names[i].empty()
                                     ? fmt::format(fmt::runtime(tr(language, " (“{}”)")), l.names[i])
                                     : "";
        return fmt::format(fmt::runtime(tr(language, message)), i + 1, name, read->first);
    };
    for (std::size_t r = 0; r < M.rows; ++r)
        add("wrong_row", row_of(M, r), place(base.rows, r, translatable("This answer is row {0}{1} of {2}.")));
    if (M.rows == M.cols)
        for (std::size_t c = 0; c < M.cols; ++c)
            add("wrong_row", row_of(kernels::transpose(M), c),
                place(base.cols, c, translatable("This answer is column {0}{1} of {2}, read down.")));
    return out;
}

}  // namespace qkv
