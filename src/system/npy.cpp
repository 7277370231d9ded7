// The .npy writer (npy.hpp): magic, version, header length, a Python dict padded so the data
// starts at a multiple of 64 bytes, then the floats as they lie in memory.
#include "qkv/npy.hpp"

#include <bit>
#include <cstdio>
#include <memory>

#include <fmt/format.h>

namespace qkv {

// The data are written as they lie in memory, and the header says little-endian.
static_assert(std::endian::native == std::endian::little, ".npy files are written little-endian");

std::optional<std::string> write_npy(const std::string& path, const float* data, std::size_t rows, std::size_t cols) {
    std::string header = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}", rows, cols);
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), std::fclose);
    if (!f) return "cannot write this file";
    const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xff),
                                  static_cast<unsigned char>(header.size() >> 8)};
    const std::size_t count = rows * cols;
    const bool ok = std::fwrite("\x93NUMPY\x01\x00", 1, 8, f.get()) == 8 && std::fwrite(len, 1, 2, f.get()) == 2 &&
                    std::fwrite(header.data(), 1, header.size(), f.get()) == header.size() &&
                    std::fwrite(data, sizeof(float), count, f.get()) == count;
    if (!ok || std::fclose(f.release()) != 0) return "cannot write this file (disk full?)";
    return std::nullopt;
}

}  // namespace qkv
