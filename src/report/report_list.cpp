// The lessons as `qkv list` shows them. A file's name is the user's as much as a title is (ESC,
// bytes not UTF-8): both are shown escaped.
#include "qkv/report_list.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qkv/control_text.hpp"
#include "qkv/display_width.hpp"
#include "qkv/render_json.hpp"
#include "qkv/render_markdown.hpp"

namespace qkv {

namespace {

std::string name_of(const lesson& l) { return escape_controls(lesson_name(l.file)); }

}  // namespace

std::string lesson_list(const std::vector<lesson>& lessons, format form, const render_options& o) {
    if (form == format::json) {
        auto list = nlohmann::ordered_json::array();
        for (const lesson& l : lessons)
            list.push_back({{"number", l.number}, {"title", l.title.in(o.language)}, {"stages", l.stages.size()}, {"name", name_of(l)}});
        return render_json(nlohmann::ordered_json{{"lang", lang_code(o.language)}, {"lessons", list}}) + "\n";
    }
    std::string out;
    std::size_t name_width = 0;  // the longest name sets the column
    for (const lesson& l : lessons) name_width = std::max(name_width, display_width(name_of(l)));
    for (const lesson& l : lessons) {
        const std::string stages = fmt::format(fmt::runtime(tr(o.language, "{} stages")), l.stages.size());
        const std::string title = escape_controls(l.title.in(o.language));
        const std::size_t used = 3 + 2 + name_width + 2 + 2 + display_width(stages) + 2;  // "  1  name  title  (n stages)"
        // a title is the author's, and a Git host renders the table: escaped as `run --format markdown` escapes it
        out += form == format::markdown ? fmt::format("| {} | {} | {} | {} |\n", l.number, markdown_cell(lesson_name(l.file)),
                                                      markdown_cell(l.title.in(o.language)), l.stages.size())
                                        : fmt::format("{:>3}  {}  {}  ({})\n", l.number, pad(name_of(l), name_width),
                                                      o.full ? title : elide(title, o.width > used + 10 ? o.width - used : 10), stages);
    }
    if (form == format::markdown) out = "| # | name | title | stages |\n|---|---|---|---|\n" + out;  // the text's columns
    return out;
}

}  // namespace qkv
