// Where an input error happened and what it is, as the one line main prints.
#include "qkv/error.hpp"

namespace qkv {

std::string source_loc::str() const {
    if (file.empty()) return {};
    std::string out = file;
    if (line > 0) {
        out += ':' + std::to_string(line);
        if (column > 0) out += ':' + std::to_string(column);
    }
    return out;
}

namespace {

// "LOC: message", or just the message when we do not know the file.
std::string with_location(const source_loc& where, const std::string& message) {
    std::string loc = where.str();
    return loc.empty() ? message : loc + ": " + message;
}

}  // namespace

input_error::input_error(const source_loc& where, const std::string& message)
    : std::runtime_error(with_location(where, message)), where_(where), message_(message) {}

input_error::input_error(const std::string& message)
    : std::runtime_error(message), message_(message) {}

}  // namespace qkv
