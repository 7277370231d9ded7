// Why a file cannot be read (file_check.hpp): stat(2) and access(2), whose errno says it.
#include "qkv/file_check.hpp"

#include <cerrno>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

namespace qkv {

using file_words::translatable;

std::optional<file_problem> unreadable_file(const std::string& path) {
    struct stat st {};
    if (path.empty()) return file_problem(translatable("not found (the name is empty)"));
    if (::stat(path.c_str(), &st) != 0) {
        const int err = errno;
        if (err == ENOENT || err == ENOTDIR) return file_problem(translatable("not found"));
        if (err == ENAMETOOLONG)
            return file_problem(translatable("a name too long for the file system (a part over 255 bytes, or the whole over 4096)"));
        return file_problem(translatable("not readable: {}"), {std::strerror(err)}, err);
    }
    if (!S_ISREG(st.st_mode)) return file_problem(translatable("not a regular file (a folder, a named pipe or a device)"));
    if (::access(path.c_str(), R_OK) != 0) {
        const int err = errno;
        return file_problem(translatable("not readable: {}"), {std::strerror(err)}, err);
    }
    return std::nullopt;
}

}  // namespace qkv
