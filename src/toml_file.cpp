// The one place TOML syntax errors become qkv's one-line errors with file:line:column.
#include "qkv/toml_file.hpp"

#include <filesystem>

#include <fmt/format.h>

namespace qkv {

source_loc loc_of(const std::string& file, const toml::node& n) {
    return {file, static_cast<int>(n.source().begin.line), static_cast<int>(n.source().begin.column)};
}

static input_error error_of(const toml::parse_error& e, const std::string& origin) {
    return input_error(source_loc{origin, static_cast<int>(e.source().begin.line), static_cast<int>(e.source().begin.column)},
                       std::string(e.description()));
}

toml::table parse_toml_file(const std::string& path, std::string_view what) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) throw input_error(source_loc{path, 0, 0}, fmt::format("{} not found", what));
    try {
        return toml::parse_file(path);
    } catch (const toml::parse_error& e) {
        throw error_of(e, path);
    }
}

toml::table parse_toml_text(std::string_view text, const std::string& origin) {
    try {
        return toml::parse(text, origin);
    } catch (const toml::parse_error& e) {
        throw error_of(e, origin);
    }
}

}  // namespace qkv
