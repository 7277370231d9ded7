// The shape check every attention pass makes first (attention_args.hpp).
#include "qkv/attention_args.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace qkv::attention {

void check_shapes(const matrix& X, const weights& W, const options& o) {
    const std::size_t d = X.cols;
    if (o.heads == 0 || d == 0 || d % o.heads != 0)
        throw std::invalid_argument(fmt::format("attention: {} heads do not divide d_model = {}", o.heads, d));
    for (const matrix* w : {&W.W_Q, &W.W_K, &W.W_V, &W.W_O})
        if (w->rows != d || w->cols != d)
            throw std::invalid_argument(fmt::format("attention: weights are {}, X is {}", shape_str(*w), shape_str(X)));
}

}  // namespace qkv::attention
