// The dense row-major matrix: checked construction from values, and the two helpers every
// test and renderer wants (its shape as text, and how far apart two matrices are).
#include "qkv/matrix.hpp"

#include <cmath>
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

bool within_cell_limit(std::size_t rows, std::size_t cols) {
    return rows == 0 || cols <= max_cells / rows;
}

std::string cell_limit_message(std::size_t rows, std::size_t cols) {
    // in double: rows · cols may not fit a size_t (a count times a size, both up to 2^31)
    return fmt::format("[{}, {}] would be {} cells, more than the limit of 2^28 = {}", rows, cols,
                       static_cast<double>(rows) * static_cast<double>(cols), max_cells);
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
