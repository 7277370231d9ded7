// The dense row-major matrix: checked construction from values, and the two helpers every
// test and renderer wants (its shape as text, and how far apart two matrices are).
#include "qkv/matrix.hpp"

#include <cmath>
#include <algorithm>
#include <limits>
#include <stdexcept>

namespace qkv {

matrix::matrix(std::size_t r, std::size_t c, std::vector<float> values)
    : rows(r), cols(c), data(std::move(values)) {
    if (data.size() != r * c)
        throw std::invalid_argument(fmt::format("matrix [{}, {}] needs {} values, got {}", r, c,
                                                r * c, data.size()));
}

matrix matrix::of(std::initializer_list<std::initializer_list<float>> rows) {
    const std::size_t r = rows.size();
    const std::size_t c = r ? rows.begin()->size() : 0;
    std::vector<float> values;
    values.reserve(r * c);
    for (const auto& row : rows) {
        // A ragged literal is a bug in the caller, not bad user input.
        if (row.size() != c) throw std::invalid_argument("matrix::of: rows of different lengths");
        values.insert(values.end(), row.begin(), row.end());
    }
    return matrix(r, c, std::move(values));
}

bool within_cell_limit(std::size_t rows, std::size_t cols, std::size_t heads) {
    if (rows == 0 || heads == 0) return true;
    return cols <= max_cells / rows && heads <= max_cells / (rows * std::max<std::size_t>(cols, 1));
}

sentence cell_limit_said(std::size_t rows, std::size_t cols, std::size_t heads) {
    // in double: h · rows · cols may not fit a size_t (counts and sizes up to 2^31 each)
    const double cells = static_cast<double>(heads) * static_cast<double>(rows) * static_cast<double>(cols);
    const std::string shape = heads == 1 ? fmt::format("[{}, {}]", rows, cols) : fmt::format("[{}, {}, {}]", heads, rows, cols);
    return said("{} would be {} cells, more than the limit of 2^28 = {}", shape, cells, max_cells);
}

std::string cell_limit_message(std::size_t rows, std::size_t cols, std::size_t heads) {
    return cell_limit_said(rows, cols, heads).in(lang::en);
}

std::string shape_str(const matrix& m) { return fmt::format("[{}, {}]", m.rows, m.cols); }

float max_abs_diff(const matrix& a, const matrix& b) {
    if (a.rows != b.rows || a.cols != b.cols) return std::numeric_limits<float>::infinity();
    float worst = 0.0f;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const float d = std::fabs(a.data[i] - b.data[i]);
        // A NaN on either side must not hide behind the comparison (NaN > x is false).
        if (std::isnan(d)) return std::numeric_limits<float>::quiet_NaN();
        if (d > worst) worst = d;
    }
    return worst;
}

}  // namespace qkv
