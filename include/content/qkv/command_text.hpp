// The teaching prose a command prints around its own numbers (what `qkv bench` measured and why
// it grows as it does): data like the lessons, in lessons/prose/NAME.toml, one { zh, en } text per
// key, so that no explanation is written in C++.
#pragma once

#include <string>
#include <string_view>

#include "qkv/bilingual.hpp"

namespace qkv {

// The text under `key` of lessons/prose/NAME.toml; input_error (file:line) when the file or the
// key is missing or not { zh = "…", en = "…" }.
const bilingual& command_text(std::string_view name, std::string_view key);

}  // namespace qkv
