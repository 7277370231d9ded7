// A checked answer in words and JSON (report_check.hpp).
#include "qkv/report_check.hpp"

#include <fmt/format.h>

#include "qkv/render_json.hpp"
#include "qkv/styled_text.hpp"
#include "exercise_text.hpp"

namespace qkv {

std::string verdict_text(const check_verdict& v, const render_options& o) {
    const lang l = o.language;
    if (v.correct)
        return fmt::format("{} {}\n{}\n{}\n{}", styled("✓", fmt::fg(fmt::terminal_color::green) | fmt::emphasis::bold, o.color),
                           tr(l, "Right!"), detail::expected_text(v.expected, o), tr(l, "Worked solution:"),
                           detail::prose(v.solution, o));
    std::string out = fmt::format("{} {}\n", styled("✗", fmt::fg(fmt::terminal_color::red) | fmt::emphasis::bold, o.color),
                                  tr(l, "Not right yet."));
    for (const std::string& line : v.explanation) out += detail::prose(line, o);
    return out + fmt::format("{}qkv hint {}\n", tr(l, "Try again, or ask for a hint: "), v.id);
}

trace_json detail::expected_json(const expected_answer& x) {
    switch (x.kind) {
    case answer_kind::choice:
        return {{"letter", std::string(1, x.letter)}, {"file_letter", std::string(1, x.file_letter)}, {"text", x.text}};
    case answer_kind::shape: return {{"name", x.value.name}, {"shape", x.value.v.shape()}};
    case answer_kind::number:
    case answer_kind::matrix: {  // as a trace writes a value; the right answer is no stage's input or output
        trace_json j = json_of(x.value);
        j.erase("role");
        return j;
    }
    }
    return {};
}

std::string verdict_json(const check_verdict& v) {
    trace_json j = detail::exercise_head_json(v);
    j["answer"] = v.answer;
    j["correct"] = v.correct;
    j["mistakes"] = trace_json::array();
    for (const named_mistake& m : v.mistakes) j["mistakes"].push_back({{"id", m.id}, {"text", m.text}});
    j["places"] = v.places;
    j["explanation"] = v.explanation;
    j["expected"] = v.correct ? detail::expected_json(v.expected) : trace_json();
    j["solution"] = v.correct ? trace_json(v.solution) : trace_json();
    return render_json(j) + "\n";
}

}  // namespace qkv
