// `qkv validate`: check lesson, scenario and exercise files the way they will be used, and list
// every problem found with its file:line, instead of stopping at the first.
#pragma once

#include <string>
#include <vector>

#include "qkv/toml_file.hpp"

namespace qkv {

struct validation {
    std::string kind;               // "lesson", "scenario", "exercises", "mistakes" or "" (unreadable)
    std::string summary;            // when clean: what was checked ("lesson 3, 4 stages, run on apple.toml")
    std::vector<problem> problems;  // empty: the file is good
    std::vector<problem> warnings;  // worth a look, not wrong: a decimal written into a text instead of quoted
};

// A lesson: a number an earlier NN-name.toml of its folder already has, and every problem the
// lesson loader finds (each listed, not only the first); when the loader finds none, the lesson
// is run on its scenario (or on `data_file`), so names resolve and shapes agree, and on generated
// sentences of min_tokens and of 64 tokens, so its quotes hold on any sentence.
// Exercises and the mistake book: every problem the loader finds, then each good exercise is
// evaluated on its lesson. A scenario: it loads (its first problem). In every kind of file, a
// control or bidi character in any string (ESC, CR, NUL, U+202E…) is a problem too, at its
// file:line: the renderers would show it escaped, which is never what the author meant, so a file
// holding one is not "ok" and validate's status is 1.
validation validate_file(const std::string& path, const std::string& data_file = "");

}  // namespace qkv
