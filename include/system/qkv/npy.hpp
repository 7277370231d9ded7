// NumPy's .npy format, for handing qkv's matrices to numpy and PyTorch (bench/compare_torch.py
// and compare_ort.py read what `qkv bench --dump-dir` writes).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace qkv {

// Writes rows × cols floats, row after row from data, to path as a .npy file (format 1.0,
// little-endian float32, C order), through replace_file (file_write.hpp): a link, a named pipe or a
// read-only file there is refused, never written through. Returns what went wrong, in words that
// follow the file's name, or nullopt once the whole file is in place; the caller says it in its own
// error, so this layer needs none of qkv's.
[[nodiscard]] std::optional<std::string> write_npy(const std::string& path, const float* data, std::size_t rows,
                                                   std::size_t cols);

}  // namespace qkv
