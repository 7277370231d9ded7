// The exercise reports' shared layout (exercise_text.hpp).
#include "exercise_text.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "qkv/control_text.hpp"
#include "qkv/display_width.hpp"
#include "qkv/number_text.hpp"
#include "qkv/render_text.hpp"
#include "qkv/styled_text.hpp"
#include "qkv/wrap.hpp"

namespace qkv::detail {

std::string prose(const std::string& text, const render_options& o) {
    std::string out;
    for (const std::string& line : reflow(escape_controls(text, true), std::max<std::size_t>(o.width, 20))) out += line + "\n";
    return out;
}

std::string hanging(const std::string& text, const render_options& o, std::string_view lead, std::string_view indent) {
    std::string out;
    for (const std::string& line : wrap_paragraph(escape_controls(text), std::max<std::size_t>(o.width, lead.size() + 20) - lead.size(), indent))
        out += std::string(lead) + line + "\n";
    return out;
}

std::string bar(std::size_t done, std::size_t total, bool color) {
    const std::size_t width = 10;
    std::size_t full = total ? (done * width + total / 2) / total : 0;
    std::string filled, empty;
    for (std::size_t i = 0; i < width; ++i) (i < full ? filled : empty) += i < full ? "█" : "░";
    return styled(filled, fmt::fg(fmt::terminal_color::green), color) + styled(empty, fmt::emphasis::faint, color);
}

std::string first_line(const std::string& text, std::size_t columns) {
    return elide(escape_controls(text.substr(0, text.find('\n'))), columns);
}

std::string expected_text(const expected_answer& x, const render_options& o) {
    switch (x.kind) {
    case answer_kind::choice: {
        std::string out = hanging(fmt::format("{}. {}", x.letter, x.text), o, "", "   ");
        if (!x.student.empty())
            out += prose(fmt::format(fmt::runtime(tr(o.language, "({0} is the letter in {1}'s order of the choices, each student's own; "
                                                       "without --student, in the exercise file's order, it is {2})")),
                                 x.letter, x.student, x.file_letter),
                         o);
        return out;
    }
    case answer_kind::shape: return fmt::format("{} = {}\n", x.value.name, x.value.v.shape_str());
    case answer_kind::number: return fmt::format("{} = {}\n", x.value.name, number_text(x.value.v.number, number_style::fixed, o.precision));
    case answer_kind::matrix: return render_values_text({x.value}, o);
    }
    return "";
}

}  // namespace qkv::detail
