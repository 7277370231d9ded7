// What is wrong with a file the user named, in words that follow a description of the file
// ("scenario file: not a regular file (…)"). It is its English, a string as callers have always
// compared and joined it ("not found", "not readable: Permission denied"), and it keeps what a
// layer that speaks the learner's language needs to word it again (file_words.hpp): the message
// of the catalogues, what fills its {}, and the errno behind "not readable: {}". This layer
// words nothing itself: it needs none of qkv.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/args.h>
#include <fmt/format.h>

namespace qkv {

namespace file_words {

// Marks a message of the catalogues, as the text base's translatable does: xgettext finds it by
// this name (po/catalogues.sh), and tr looks it up where the problem is worded.
constexpr std::string_view translatable(std::string_view english) { return english; }

}  // namespace file_words

class file_problem : public std::string {
public:
    using std::string::string;  // English alone, worded the same in every language
    // `message` is a message of the catalogues with a {} for each of `values`; when `error` is
    // not 0, the last value is std::strerror(error), which the learner's language words anew.
    file_problem(std::string_view message, std::vector<std::string> values = {}, int error = 0)
        : std::string(english(message, values)), message_(message), values_(std::move(values)), error_(error) {}

    std::string_view message() const { return message_; }  // empty: English alone
    const std::vector<std::string>& values() const { return values_; }
    int error() const { return error_; }

private:
    static std::string english(std::string_view message, const std::vector<std::string>& values) {
        fmt::dynamic_format_arg_store<fmt::format_context> args;
        for (const std::string& v : values) args.push_back(v);
        return fmt::vformat(message, args);
    }

    std::string_view message_;
    std::vector<std::string> values_;
    int error_ = 0;
};

}  // namespace qkv
