// TOML files people write by hand (lessons, scenarios, exercises, answer sheets): parsed with every
// syntax error turned into an input_error at file:line:column, and the place of any node.
#pragma once

#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "qkv/error.hpp"

namespace qkv {

// Where a node starts in `file`.
source_loc loc_of(const std::string& file, const toml::node& n);

// Parse the file at `path`; `what` names it when it is missing ("lesson file" -> "lesson file not found").
toml::table parse_toml_file(const std::string& path, std::string_view what);

// Parse text already read; `origin` names it in errors.
toml::table parse_toml_text(std::string_view text, const std::string& origin);

}  // namespace qkv
