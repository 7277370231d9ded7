// Errors that reach the user: where in which file, and what is wrong.
// Everything below main throws qkv::input_error; only main prints it (one line) and exits 2.
#pragma once

#include <stdexcept>
#include <string>

#include "qkv/i18n.hpp"
#include "qkv/sentence.hpp"

namespace qkv {

// A place in a file the user gave us. line and column count from 1; 0 means "unknown".
struct source_loc {
    std::string file;
    int line = 0;
    int column = 0;

    // "file:line:column", "file:line" or "file", whichever parts are known.
    std::string str() const;
};

// Bad input: an unknown lesson, a malformed file, a shape mismatch, a NaN, ...
// what() is the whole one-line message, already prefixed with the location when there is one.
class input_error : public std::runtime_error {
public:
    input_error(const source_loc& where, const std::string& message);
    explicit input_error(const std::string& message);
    // A message worded in the learner's language where it is printed (what() is its English).
    input_error(const source_loc& where, const sentence& message);
    explicit input_error(const sentence& message);

    const source_loc& where() const { return where_; }
    const std::string& message() const { return message_; }  // without the location
    // The whole line in `l`, as what() is in English.
    std::string in(lang l) const;
    // The message without the location, worded later (a reader that reports it elsewhere).
    const sentence& said_message() const { return said_; }

private:
    source_loc where_;
    std::string message_;
    sentence said_;
};

}  // namespace qkv
