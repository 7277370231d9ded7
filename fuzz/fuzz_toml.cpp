// libFuzzer target: the TOML parser every reader goes through, keys above all (entry_points.hpp says what it does with the bytes).
#include "entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return qkv::fuzz::toml_input(data, size) == qkv::fuzz::outcome::skipped ? -1 : 0;
}
