// `qkv validate`: check lesson, scenario and exercise files the way they will be used, and list
// every problem found with its file:line, instead of stopping at the first.
#pragma once

#include <string>
#include <vector>

#include "qkv/error.hpp"

namespace qkv {

struct problem {
    source_loc where;
    std::string message;
    std::string str() const;  // "file:line:column: message"
};

struct validation {
    std::string kind;               // "lesson", "scenario", "exercises", "mistakes" or "" (unreadable)
    std::string summary;            // when clean: what was checked ("lesson 3, 4 stages, run on apple.toml")
    std::vector<problem> problems;  // empty: the file is good
};

// A lesson: the TOML reads; every stage has its title and text in zh and en and a formula that
// parses (all stages checked, each problem listed); the loader's own checks; then the lesson is
// run on its scenario (or on `data_file`), so names resolve and shapes agree.
// A scenario: it loads. Exercises: each exercise parses and is evaluated on its lesson.
validation validate_file(const std::string& path, const std::string& data_file = "");

}  // namespace qkv
