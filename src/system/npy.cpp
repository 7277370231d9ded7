// The .npy writer (npy.hpp): magic, version, header length, a Python dict padded so the data
// starts at a multiple of 64 bytes, then the floats as they lie in memory.
#include "qkv/npy.hpp"

#include <bit>

#include <fmt/format.h>

#include "qkv/file_write.hpp"

namespace qkv {

// The data are written as they lie in memory, and the header says little-endian.
static_assert(std::endian::native == std::endian::little, ".npy files are written little-endian");

std::optional<std::string> write_npy(const std::string& path, const float* data, std::size_t rows, std::size_t cols) {
    std::string header = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}", rows, cols);
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    const std::size_t count = rows * cols;
    std::string bytes = "\x93NUMPY\x01";
    bytes += '\0';
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>(header.size() >> 8);
    bytes += header;
    bytes.append(reinterpret_cast<const char*>(data), count * sizeof(float));
    return replace_file(path, bytes);
}

}  // namespace qkv
