// A file's problem (file_problem.hpp) and an errno in the learner's language: the words the layer
// below, which needs none of qkv, leaves as English. English stays what it was: strerror's own
// text, and the problem's string. Header-only.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "qkv/file_problem.hpp"
#include "qkv/i18n.hpp"
#include "qkv/sentence.hpp"

namespace qkv {

// What std::strerror(err) says, in the learner's language: the common errno of reading and
// writing files by a message of the catalogues each; another one quoted as the system says it,
// with its number. In English, std::strerror(err) itself.
inline sentence errno_said(int err) {
    return sentence::worded([err](lang l) -> std::string {
        const std::string system = std::strerror(err);
        if (l == lang::en) return system;
        std::string_view words;
        switch (err) {
            case EACCES: words = translatable("Permission denied"); break;
            case EPERM: words = translatable("Operation not permitted"); break;
            case ENOENT: words = translatable("No such file or directory"); break;
            case EISDIR: words = translatable("Is a directory"); break;
            case ENOTDIR: words = translatable("Not a directory"); break;
            case ELOOP: words = translatable("Too many levels of symbolic links"); break;
            case ENAMETOOLONG: words = translatable("File name too long"); break;
            case EROFS: words = translatable("Read-only file system"); break;
            case ENOSPC: words = translatable("No space left on device"); break;
            case EDQUOT: words = translatable("Disk quota exceeded"); break;
            case EFBIG: words = translatable("File too large"); break;
            case EMFILE: words = translatable("Too many open files"); break;
            case ENFILE: words = translatable("Too many open files in system"); break;
            case EEXIST: words = translatable("File exists"); break;
            case EBUSY: words = translatable("Device or resource busy"); break;
            case EIO: words = translatable("Input/output error"); break;
            case ENOMEM: words = translatable("Cannot allocate memory"); break;
            case EPIPE: words = translatable("Broken pipe"); break;
            case EXDEV: words = translatable("Invalid cross-device link"); break;
            default: return fmt::format(fmt::runtime(tr(l, "the system's error {}: \"{}\"")), err, system);
        }
        return tr(l, words);
    });
}

// The problem in the learner's language: its message looked up, its values filled in, the errno
// behind "not readable: {}" worded by errno_said. A problem without a message is English alone.
inline sentence said_of(const file_problem& p) {
    const std::vector<std::string>& v = p.values();
    auto value = [&](std::size_t i) { return p.error() && i + 1 == v.size() ? errno_said(p.error()) : sentence::plain(v[i]); };
    if (p.message().empty() || v.size() > 2) return sentence::plain(p);
    if (v.empty()) return said(p.message());
    if (v.size() == 1) return said(p.message(), value(0));
    return said(p.message(), value(0), value(1));
}

}  // namespace qkv
