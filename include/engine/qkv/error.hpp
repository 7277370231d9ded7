// Errors that reach the user: where in which file, and what is wrong.
// Everything below main throws qkv::input_error; only main prints it (one line) and exits 2.
#pragma once

#include <stdexcept>
#include <string>

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

    const source_loc& where() const { return where_; }
    const std::string& message() const { return message_; }  // without the location

private:
    source_loc where_;
    std::string message_;
};

}  // namespace qkv
