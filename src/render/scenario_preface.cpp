// The generated scenario before a lesson, cut to a screen: the rows of a long matrix elided
// numpy-style (as a TOML comment, so what is shown still reads as the file), long lines cut.
#include "qkv/scenario_preface.hpp"

#include <vector>

#include <fmt/format.h>

#include "qkv/styled_text.hpp"

namespace qkv {
namespace {

bool is_row(std::string_view line) { return line.starts_with("  ["); }

// A run of matrix rows: the first three and the last two around the comment, when over eight.
void rows_to(std::string& out, const std::vector<std::string_view>& rows, const render_options& o) {
    auto line = [&](std::string_view row) { out += plain(clip(row, o.width)) + '\n'; };
    if (rows.size() <= 8) {
        for (auto row : rows) line(row);
        return;
    }
    for (std::size_t i = 0; i < 3; ++i) line(rows[i]);
    out += fmt::format(fmt::runtime(tr(o.language, "  # … {} more rows (--full shows them, -o FILE keeps them)")),
                       rows.size() - 5) + '\n';
    for (std::size_t i = rows.size() - 2; i < rows.size(); ++i) line(rows[i]);
}

}  // namespace

std::string scenario_preface(std::string_view toml, const render_options& o) {
    if (o.full) return std::string(toml);
    std::string out;
    const std::vector<std::string> lines = split_lines(toml);
    std::vector<std::string_view> rows;  // into lines
    for (std::string_view line : lines) {
        if (is_row(line)) {
            rows.push_back(line);
            continue;
        }
        rows_to(out, rows, o), rows.clear();
        out += (line.starts_with("#") ? std::string(line) : plain(clip(line, o.width))) + '\n';
    }
    rows_to(out, rows, o);
    return out;
}

}  // namespace qkv
