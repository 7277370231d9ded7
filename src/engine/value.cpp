// What a formula name holds: the factories that keep kind and storage in step, and the shape
// and finiteness questions the evaluator asks of every value.
#include "qkv/value.hpp"

#include <cmath>

namespace qkv {

value value::scalar(float x) {
    value v;
    v.k = kind::scalar;
    v.number = x;
    return v;
}

value value::of(matrix m, labels rows, labels cols) {
    value v;
    v.k = kind::matrix;
    v.mats.push_back(std::move(m));
    v.rows = std::move(rows);
    v.cols = std::move(cols);
    return v;
}

std::string_view stack_item(const value& v) {
    if (v.stack_axis == "devices") return "device";
    if (v.stack_axis == "samples") return "sample";
    return "head";
}

value value::stack(std::vector<matrix> heads, labels rows, labels cols) {
    value v;
    v.k = kind::stack;
    v.mats = std::move(heads);
    v.rows = std::move(rows);
    v.cols = std::move(cols);
    return v;
}

std::vector<std::size_t> value::shape() const {
    switch (k) {
    case kind::scalar: return {};
    case kind::matrix: return {mat().rows, mat().cols};
    case kind::stack:
        if (mats.empty()) return {0, 0, 0};
        return {mats.size(), mats.front().rows, mats.front().cols};
    }
    return {};
}

std::string value::shape_str() const {
    std::string out = "[";
    bool first = true;
    for (std::size_t d : shape()) {
        if (!first) out += ", ";
        out += std::to_string(d);
        first = false;
    }
    return out + "]";
}

bool value::all_finite() const {
    if (is_scalar()) return std::isfinite(number);
    for (const matrix& m : mats)
        for (float x : m.data)
            if (!std::isfinite(x)) return false;
    return true;
}

}  // namespace qkv
