// Writing a file the user named (a scenario, a trained model) so that it is never left half-written:
// the whole new file or the old one, whatever stops the program. Private to src/cli.
#pragma once

#include <string>
#include <string_view>

#include "qkv/sentence.hpp"

namespace qkv::cli {

// FILE is either the old file or the whole new one, through the one writer (qkv/file_write.hpp:
// a temporary beside it, fsync, rename; Ctrl-C, SIGTERM and SIGHUP wait). A file replaced keeps
// its mode and owner. Only a regular file (or a name not yet taken, in a folder that exists) is
// written: a symbolic link, a device, a pipe, a folder or a read-only file is refused (input_error,
// one line naming the file; "not a regular file: " and `what`, which says where the option writes).
void write_file_atomically(const std::string& path, std::string_view bytes, const sentence& what);

// The same refusal, ahead of long work whose result would go there: nothing is written.
void check_writable(const std::string& path, const sentence& what);

}  // namespace qkv::cli
