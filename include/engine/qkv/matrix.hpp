// A dense row-major float matrix: the one container every kernel works on.
// float, not double, because that is what PyTorch and cblas_sgemm compute in.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "qkv/sentence.hpp"

namespace qkv {

// The most cells one value may have: 2^28 floats are 1 GiB. Every size a user can write (a
// scenario's randn, a formula's zeros, a broadcast, a product) is checked against it before
// anything is allocated, so "too large" is an error with a file and line, never a crash.
constexpr std::size_t max_cells = std::size_t{1} << 28;

// Whether a [rows, cols] matrix, or a stack of `heads` of them, stays within max_cells (checked
// without overflowing): the limit is on the whole value, not on each head.
bool within_cell_limit(std::size_t rows, std::size_t cols, std::size_t heads = 1);

// "[r, c] would be N cells, more than the limit of 2^28 = 268435456" ("[h, r, c] …" for a stack):
// the one wording of the limit, for callers that prefix it with what asked for the value; said in
// the learner's language, and its English.
sentence cell_limit_said(std::size_t rows, std::size_t cols, std::size_t heads = 1);
std::string cell_limit_message(std::size_t rows, std::size_t cols, std::size_t heads = 1);

struct matrix {
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::vector<float> data;  // rows * cols, row-major

    matrix() = default;
    matrix(std::size_t r, std::size_t c, float fill = 0.0f) : rows(r), cols(c), data(r * c, fill) {}
    matrix(std::size_t r, std::size_t c, std::vector<float> values);  // values.size() == r * c
    // From nested rows, for tests and small literals: matrix::of({{1, 2}, {3, 4}}).
    static matrix of(std::initializer_list<std::initializer_list<float>> rows);

    float& operator()(std::size_t r, std::size_t c) { return data[r * cols + c]; }
    float operator()(std::size_t r, std::size_t c) const { return data[r * cols + c]; }
    float* row(std::size_t r) { return data.data() + r * cols; }
    const float* row(std::size_t r) const { return data.data() + r * cols; }
    std::size_t size() const { return data.size(); }

    bool operator==(const matrix&) const = default;
};

// "[3, 4]"
std::string shape_str(const matrix& m);

// Largest |a - b| over all cells; +inf when the shapes differ.
float max_abs_diff(const matrix& a, const matrix& b);

}  // namespace qkv

// fmt::format("{:.3f}", m) prints "[[1.000, 2.000], [3.000, 4.000]]": the spec applies to each cell.
template <>
struct fmt::formatter<qkv::matrix> : fmt::formatter<float> {
    template <typename FormatContext>
    auto format(const qkv::matrix& m, FormatContext& ctx) const -> decltype(ctx.out()) {
        auto out = ctx.out();
        *out++ = '[';
        for (std::size_t r = 0; r < m.rows; ++r) {
            if (r) out = fmt::format_to(out, ", ");
            *out++ = '[';
            for (std::size_t c = 0; c < m.cols; ++c) {
                if (c) out = fmt::format_to(out, ", ");
                ctx.advance_to(out);
                out = fmt::formatter<float>::format(m(r, c), ctx);
            }
            *out++ = ']';
        }
        *out++ = ']';
        return out;
    }
};
