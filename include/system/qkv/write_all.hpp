// Writing all of a piece of text to a file descriptor: the one loop every writer of qkv uses (a
// file, the console, a screen), because a write may take part of it, be interrupted by a signal,
// or meet a full non-blocking pipe.
#pragma once

#include <cstddef>
#include <string_view>

namespace qkv {

// Writes every byte of `bytes` to fd: again after a signal (EINTR), and after waiting for room
// on a full non-blocking descriptor (EAGAIN). Returns how many bytes went out: all of them, or
// fewer when a write failed (errno says why, as the kernel set it).
std::size_t write_some_of(int fd, std::string_view bytes);

// The same, true when every byte went out.
inline bool write_all(int fd, std::string_view bytes) { return write_some_of(fd, bytes) == bytes.size(); }

}  // namespace qkv
