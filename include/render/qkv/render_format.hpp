// One way to render: the output formats, read from their names once, and the one entry point that
// renders whole lessons in any of them. The renderers of each format are in render_*.hpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/render.hpp"
#include "qkv/trace.hpp"

namespace qkv {

enum class format { text, markdown, json, html };

// "text", "markdown", "json", "html": the format; nullopt for any other name.
std::optional<format> parse_format(std::string_view name);
std::string_view format_name(format f);

// The lessons in format f. Text and markdown: one lesson after the other, a blank line between,
// o.preface first (text: cut to a screen as scenario_preface does; markdown: a TOML code block).
// JSON: one trace as an object, more as an array, and a line end. HTML: one page for them all.
std::string render(const std::vector<trace>& traces, format f, const render_options& o);

}  // namespace qkv
