// One way to render: the output formats as one table (their names, read once), and the one entry
// point that renders whole lessons in any of a lesson's formats. The renderers of each format are
// in render_*.hpp; what else a command writes (a class as CSV) is the report layer's.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/render.hpp"
#include "qkv/trace.hpp"

namespace qkv {

enum class format { text, markdown, json, html, csv };

// Every output format of qkv, once: its name on the command line (--format NAME). Which of them a
// command writes is the command's own list; its --help, the man page and the shell completions
// name them from here (a test holds the three to this table).
struct format_entry {
    format id;
    std::string_view name;
};
std::span<const format_entry> format_table();

// "text", "markdown", "json", "html", "csv": the format; nullopt for any other name.
std::optional<format> parse_format(std::string_view name);
std::string_view format_name(format f);

// The lessons in format f (text, markdown, json or html: a lesson has no CSV; csv writes text). Text and markdown: one lesson after the other, a blank line between,
// o.preface first (text: cut to a screen as scenario_preface does; markdown: a TOML code block).
// JSON: one trace as an object, more as an array, and a line end. HTML: one page for them all.
std::string render(const std::vector<trace>& traces, format f, const render_options& o);

}  // namespace qkv
