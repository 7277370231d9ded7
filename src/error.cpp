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

// Messages quote what the user gave, which may be binary: a control byte would cut what() short
// (NUL), break the one line (newline) or drive the terminal (ESC), so each is written as \xNN.
std::string printable(const std::string& s) {
    std::string out;
    for (char c : s) {
        auto b = static_cast<unsigned char>(c);
        if ((b < 0x20 && c != '\t') || b == 0x7F) {
            constexpr char hex[] = "0123456789abcdef";
            out += {'\\', 'x', hex[b >> 4], hex[b & 0xF]};
        } else {
            out += c;
        }
    }
    return out;
}

// "LOC: message", or just the message when we do not know the file.
std::string with_location(const source_loc& where, const std::string& message) {
    std::string loc = where.str();
    return loc.empty() ? message : loc + ": " + message;
}

}  // namespace

input_error::input_error(const source_loc& where, const std::string& message)
    : std::runtime_error(printable(with_location(where, message))), where_(where), message_(printable(message)) {}

input_error::input_error(const std::string& message)
    : std::runtime_error(printable(message)), message_(printable(message)) {}

}  // namespace qkv
