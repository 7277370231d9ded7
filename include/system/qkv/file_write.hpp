// One writer for every file qkv writes (a scenario with -o, the progress file, the .npy files of
// `qkv bench --dump-dir`): a regular file is replaced whole or not at all, and nothing else is
// written through — not a symbolic link, a named pipe, a device, a folder or a read-only file.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace qkv {

// Replaces `path` with `bytes`: written beside it under a temporary name, synced, then renamed over
// it (atomic within a folder), the folder synced. A file replaced keeps its mode and owner; a new
// one gets what the umask allows. Its folder must exist already: no folder is made. SIGINT, SIGTERM
// and SIGHUP wait until the file is whole or the temporary removed. Returns what went wrong, in
// words that follow the file's name ("a symbolic link; …", "read-only; …", "cannot write: …"), or
// nullopt once the file is in place.
[[nodiscard]] std::optional<std::string> replace_file(const std::string& path, std::string_view bytes);

// What replace_file would refuse at `path` before writing a byte (a link, a named pipe, a device, a
// folder, a read-only file; a folder that is missing or may not be written, a name too long), or
// nullopt: for a command that should say so before long work. The temporary's own name is never too
// long: a long NAME is cut in it.
[[nodiscard]] std::optional<std::string> cannot_replace(const std::string& path);

// Makes the folder `path` itself (never its parents) unless it is a folder already; returns what
// went wrong, as replace_file does.
[[nodiscard]] std::optional<std::string> make_folder(const std::string& path);

}  // namespace qkv
