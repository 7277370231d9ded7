// libFuzzer target: a learner's answer. The first byte picks the kind (choice, shape, number,
// matrix), the rest is the text typed; whatever is accepted must be a well-formed answer.
#include <cmath>
#include <cstdint>

#include "fuzz_common.hpp"
#include "qkv/answer.hpp"
#include "qkv/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    auto kind = static_cast<qkv::answer_kind>(data[0] % 4);
    try {
        qkv::answer a = qkv::parse_answer(kind, qkv::fuzz::text_of(data + 1, size - 1));
        switch (kind) {
        case qkv::answer_kind::choice:
            if (a.choice < 'A' || a.choice > 'D') __builtin_trap();
            break;
        case qkv::answer_kind::shape:
            if (a.shape.empty()) __builtin_trap();
            qkv::shape_text(a.shape);
            break;
        case qkv::answer_kind::number:
            if (!std::isfinite(a.number)) __builtin_trap();
            break;
        case qkv::answer_kind::matrix:
            if (a.m.data.size() != a.m.rows * a.m.cols || a.m.rows == 0 || a.m.cols == 0) __builtin_trap();
            for (float x : a.m.data)
                if (!std::isfinite(x)) __builtin_trap();
            break;
        }
    } catch (const qkv::input_error&) {
    }
    return 0;
}
