// Reading a file whole within a cap (file_read.hpp): fstat before reading, and a read that stops at
// the cap; and a name opened part by part inside one folder.
#include "qkv/file_read.hpp"

#include <cerrno>
#include <cstring>
#include <new>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace qkv {

using file_words::translatable;

std::string byte_size_text(std::uint64_t bytes) {
    if (bytes >= (std::uint64_t{1} << 20) && bytes % (std::uint64_t{1} << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
    if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
    return fmt::format("{} bytes", bytes);
}

namespace {

file_problem too_large(std::uint64_t size, std::uint64_t max_bytes) {
    return file_problem(translatable("too large: {} bytes, where one holds at most {}"), {std::to_string(size), byte_size_text(max_bytes)});
}

file_problem not_readable(int err) { return file_problem(translatable("not readable: {}"), {std::strerror(err)}, err); }

}  // namespace

std::optional<file_problem> read_fd_capped(int fd, std::uint64_t max_bytes, std::string& out) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return not_readable(errno);
    if (!S_ISREG(st.st_mode)) return file_problem(translatable("not a regular file (a folder, a named pipe or a device)"));
    if (std::uint64_t(st.st_size) > max_bytes) return too_large(std::uint64_t(st.st_size), max_bytes);
    out.clear();
    try {
        out.reserve(std::size_t(st.st_size));
    } catch (const std::bad_alloc&) {
        return file_problem(translatable("too large for the memory there is: {} bytes"), {std::to_string(st.st_size)});
    }
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n == 0) break;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return not_readable(errno);
        if (out.size() + std::size_t(n) > max_bytes) return too_large(out.size() + std::size_t(n), max_bytes);  // it grew
        out.append(buf, std::size_t(n));
    }
    return std::nullopt;
}

std::optional<file_problem> read_file_capped(const std::string& path, std::uint64_t max_bytes, std::string& out) {
    if (path.empty()) return file_problem(translatable("not found (the name is empty)"));
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // a FIFO must not block the open
    if (fd < 0) {
        const int err = errno;
        if (err == ENOENT || err == ENOTDIR) return file_problem(translatable("not found"));
        if (err == ENAMETOOLONG)
            return file_problem(translatable("a name too long for the file system (a part over 255 bytes, or the whole over 4096)"));
        return not_readable(err);
    }
    std::optional<file_problem> no = read_fd_capped(fd, max_bytes, out);
    ::close(fd);
    return no;
}

int open_inside(const std::string& dir, std::string_view relative, std::string& why) {
    std::vector<std::string> parts;
    for (std::size_t at = 0; at <= relative.size();) {
        std::size_t end = relative.find('/', at);
        if (end == std::string_view::npos) end = relative.size();
        const std::string_view part = relative.substr(at, end - at);
        if (part == "..") {
            why = "names a file outside its folder (\"..\"): only a file beside it, or in a folder under it, is read";
            return -1;
        }
        if (!part.empty() && part != ".") parts.emplace_back(part);
        at = end + 1;
    }
    if (relative.starts_with('/')) {
        why = "an absolute name: only a file beside it, or in a folder under it, is read";
        return -1;
    }
    if (parts.empty()) {
        why = "names no file";
        return -1;
    }
    int at = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (at < 0) {
        why = fmt::format("its folder cannot be opened: {}", std::strerror(errno));
        return -1;
    }
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const bool last = i + 1 == parts.size();
        const int next = ::openat(at, parts[i].c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (last ? 0 : O_DIRECTORY));
        const int err = errno;
        ::close(at);
        if (next < 0) {
            why = err == ELOOP ? "a symbolic link (or goes through one): only a file beside it, or in a folder under it, is read"
                  : err == ENOENT || err == ENOTDIR ? "not found"
                                                    : fmt::format("not readable: {}", std::strerror(err));
            return -1;
        }
        at = next;
    }
    return at;
}

}  // namespace qkv
