// libFuzzer target: an exercise file (lessons/exercises/NN.toml), read against the real mistake
// vocabulary, the way `qkv validate` and `qkv check` read it.
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "fuzz_common.hpp"
#include "qkv/exercise.hpp"
#include "qkv_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const qkv::mistake_book book = [] {
        std::string path = std::string(QKV_SOURCE_ROOT) + "/lessons/exercises/mistakes.toml";
        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return qkv::parse_mistakes(text.str(), path);
    }();
    try {
        qkv::parse_exercises(qkv::fuzz::text_of(data, size), "99.toml", book);
    } catch (const qkv::input_error&) {
    }
    return 0;
}
