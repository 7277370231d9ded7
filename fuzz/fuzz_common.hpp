// What the fuzz targets share: a private temporary folder for loaders that read files, and the
// one rule every target enforces — bad input may only ever surface as qkv::input_error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

namespace qkv::fuzz {

// A folder of this process's own under $TMPDIR, made once (two fuzzers may run side by side)
// and removed at exit.
inline const std::string& scratch_dir() {
    struct folder {
        std::string path;
        folder() {
            const char* tmp = std::getenv("TMPDIR");
            path = std::string(tmp && *tmp ? tmp : "/tmp") + "/qkv-fuzz-XXXXXX";
            if (!mkdtemp(path.data())) std::abort();
        }
        ~folder() {
            std::error_code ec;
            std::filesystem::remove_all(path, ec);
        }
    };
    static const folder dir;
    return dir.path;
}

// Write the fuzzer's bytes to `name` in the scratch folder and return its path.
inline std::string write_input(const std::string& name, const std::uint8_t* data, std::size_t size) {
    std::string path = scratch_dir() + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) std::abort();
    return path;
}

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// False for text with a number of more than three digits or an exponent ("1e9"). Formulas may
// legally ask for up to 2^28 cells (1 GiB) per matrix, which makes a single run slow rather than
// wrong; keeping literals small keeps each run quick while products like 999*999 still reach
// every size check. Sizes beyond memory are tried on purpose by tests/test_bad_input.cpp.
inline bool small_numbers(std::string_view s) {
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        bool digit = s[i] >= '0' && s[i] <= '9';
        run = digit ? run + 1 : 0;
        if (run > 3) return false;
        if (i > 0 && (s[i] == 'e' || s[i] == 'E') && s[i - 1] >= '0' && s[i - 1] <= '9') return false;
    }
    return true;
}

}  // namespace qkv::fuzz
