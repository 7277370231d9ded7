// Whole files in and out, byte for byte, for the tests that prepare inputs and read results back.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace qkv::test {

// The file's bytes ("" when it cannot be read).
inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream buf;
    buf << in.rdbuf();
    return buf.str();
}

// Writes bytes to path, making its folder first.
inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace qkv::test
