// Why a file named by the user (a lesson, a scenario, a CSV matrix, an answer sheet) cannot be read,
// in qkv's own words: asked with an error code, never a std::filesystem exception, whose raw text
// names neither the file that named the path nor its line.
#pragma once

#include <optional>
#include <string>

#include "qkv/file_problem.hpp"

namespace qkv {

// nullopt when `path` is a regular file qkv may read (through links); else what is wrong, in words
// that follow a description of the file ("not found", "a name too long for the file system (…)",
// "not a regular file (…)", "not readable: Permission denied"), which file_words.hpp words in the
// learner's language.
[[nodiscard]] std::optional<file_problem> unreadable_file(const std::string& path);

}  // namespace qkv
