// Files the user named, written through the one writer (qkv/file_write.hpp) with the option's own
// words when the target is not a file qkv may replace.
#include "file_output.hpp"

#include <fmt/format.h>

#include "qkv/error.hpp"
#include "qkv/file_write.hpp"

namespace qkv::cli {
namespace {

// "not a regular file: --save writes a model to a regular file"; the writer's words otherwise.
[[noreturn]] void refuse(const std::string& path, const std::string& no, const sentence& what) {
    throw input_error(source_loc{path, 0, 0}, no.starts_with("not a regular file") ? said("not a regular file: {}", what) : sentence::plain(no));
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view bytes, const sentence& what) {
    if (auto no = replace_file(path, bytes)) refuse(path, *no, what);
}

void check_writable(const std::string& path, const sentence& what) {
    if (auto no = cannot_replace(path)) refuse(path, *no, what);
}

}  // namespace qkv::cli
