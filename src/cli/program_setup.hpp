// What a command uses of the program, put in place for it alone while it runs and taken away after:
// the program's groups of built-ins in the formula language (with lesson 18's training runs shown on
// the progress line), and its ranks as lesson 11's devices. Private to src/cli.
#pragma once

#include "qkv/cli.hpp"
#include "progress_line.hpp"

namespace qkv::cli {

class program_setup {
public:
    // `uses`: the command's use:: flags.
    program_setup(unsigned uses, const program& p, const console& io);
    ~program_setup();
    program_setup(const program_setup&) = delete;
    program_setup& operator=(const program_setup&) = delete;

private:
    unsigned uses_;
    progress_line line_;
};

}  // namespace qkv::cli
