// Why a file cannot be read (file_check.hpp): stat(2) and access(2), whose errno says it.
#include "qkv/file_check.hpp"

#include <cerrno>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace qkv {

std::optional<std::string> unreadable_file(const std::string& path) {
    struct stat st {};
    if (path.empty()) return "not found (the name is empty)";
    if (::stat(path.c_str(), &st) != 0) {
        const int err = errno;
        if (err == ENOENT || err == ENOTDIR) return "not found";
        if (err == ENAMETOOLONG) return "a name too long for the file system (a part over 255 bytes, or the whole over 4096)";
        return fmt::format("not readable: {}", std::strerror(err));
    }
    if (!S_ISREG(st.st_mode)) return "not a regular file (a folder, a named pipe or a device)";
    if (::access(path.c_str(), R_OK) != 0) return fmt::format("not readable: {}", std::strerror(errno));
    return std::nullopt;
}

}  // namespace qkv
