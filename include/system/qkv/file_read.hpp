// Reading a file the user named, whole, with a cap on its size checked before a byte is read: a
// progress file padded to 3 GiB, a sparse 3 GiB sheet in a class folder (no disk needed to make
// one) or a model whose header is 100 MB of '[' would otherwise fill the memory and end in an
// "out of memory" that names no file. And opening a file named inside a folder without leaving it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "qkv/file_problem.hpp"

namespace qkv {

// Reads the regular file at `path` into `out` when it holds at most `max_bytes`. Returns what is
// wrong, in words that follow a description of the file, or nullopt: "not found", "not a regular
// file (…)", "too large: 3221225472 bytes, where one holds at most 16 MiB", "not readable: …". A
// named pipe or a device is refused without blocking; a file that grows while it is read is
// refused at the cap, never read on. file_words.hpp words what is wrong in the learner's language.
[[nodiscard]] std::optional<file_problem> read_file_capped(const std::string& path, std::uint64_t max_bytes, std::string& out);

// The same from a descriptor opened already (closed by the caller).
[[nodiscard]] std::optional<file_problem> read_fd_capped(int fd, std::uint64_t max_bytes, std::string& out);

// "16 MiB", "512 KiB", "100 bytes": a cap as the messages say it.
std::string byte_size_text(std::uint64_t bytes);

// Opens `relative` for reading inside the folder `dir`, never outside it: an absolute name, a ".."
// part or a symbolic link anywhere on the way (each part is opened with O_NOFOLLOW from the one
// before, so nothing can be swapped in between) is refused. Returns the descriptor, or -1 with `why`
// in words that follow the name ("names a file outside the sheet's folder", "not found", …).
int open_inside(const std::string& dir, std::string_view relative, std::string& why);

}  // namespace qkv
