// One line on standard error that long work redraws in place, only when that is a terminal:
// nothing of it reaches a pipe, a file or JSON. `qkv bench` and `qkv train` both draw theirs here.
// Private to src/cli.
#pragma once

#include <string>

#include "qkv/cli.hpp"

namespace qkv::cli {

class status_line {
public:
    explicit status_line(const console& io);
    bool on() const { return on_; }
    // the line becomes `text` (carriage return, erase to the end of the line, the text), cut to
    // columns()
    void show(const std::string& text) const;
    // how wide a line may be: a column short of the window, so that it never wraps
    std::size_t columns() const;
    void clear() const;

private:
    const console& io_;
    bool on_;
};

// "about 12 s left", "about 3 min left": how long an estimate of `seconds` says is left.
std::string time_left(double seconds, lang l);

}  // namespace qkv::cli
