// Built-ins that apply one function of a number to every entry: a scalar, a matrix or a stack.
#include <cmath>

#include "qkv/builtin_values.hpp"

namespace qkv {
namespace {

using namespace builtin_detail;

value exp_fn(const args_t& a, eval_context&) {
    return map_entries(a[0], [](float x) { return std::exp(x); });
}
value sqrt_fn(const args_t& a, eval_context&) {
    return map_entries(a[0], [](float x) { return std::sqrt(x); });
}
value log_fn(const args_t& a, eval_context&) {
    return map_entries(a[0], [](float x) { return std::log(x); });
}
value abs_fn(const args_t& a, eval_context&) {
    return map_entries(a[0], [](float x) { return std::fabs(x); });
}
value tanh_fn(const args_t& a, eval_context&) {
    return map_entries(a[0], [](float x) { return std::tanh(x); });
}
value ceil_fn(const args_t& a, eval_context&) {
    return map_entries(a[0], [](float x) { return std::ceil(x); });
}

}  // namespace

std::vector<builtin> builtin_groups::entries() {
    return {
        {"exp", 1, 1, "exp(x)", "e^x of every entry; scalar, matrix or stack", exp_fn},
        {"sqrt", 1, 1, "sqrt(x)", "square root of every entry; scalar, matrix or stack", sqrt_fn},
        {"log", 1, 1, "log(x)", "natural logarithm of every entry; scalar, matrix or stack", log_fn},
        {"abs", 1, 1, "abs(x)", "absolute value of every entry; scalar, matrix or stack", abs_fn},
        {"tanh", 1, 1, "tanh(x)", "hyperbolic tangent of every entry; scalar, matrix or stack", tanh_fn},
        {"ceil", 1, 1, "ceil(x)", "every entry rounded up to a whole number (a count of layers, blocks, steps); scalar, matrix or stack", ceil_fn},
    };
}

}  // namespace qkv
