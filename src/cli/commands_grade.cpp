// qkv grade: answer sheets graded, for one student or a class.
#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "qkv/answer.hpp"
#include "qkv/control_text.hpp"
#include "qkv/display_width.hpp"
#include "qkv/toml_file.hpp"
#include "exercise_common.hpp"
#include "exercise_words.hpp"

namespace qkv::cli {

namespace po = boost::program_options;
namespace fs = std::filesystem;

// --- grade ------------------------------------------------------------------------------------

namespace {

struct graded {
    const exercise* e = nullptr;
    std::string given;   // as written on the sheet; empty: no answer
    std::string result;  // correct | wrong | unreadable | missing
    std::vector<std::string> mistakes;
    std::vector<std::string> message;
};

// The sheet's entries: id -> (answer text, its place), every id known.
std::map<std::string, std::pair<std::string, source_loc>> read_sheet(const std::string& path, const exercise_set& set) {
    toml::table doc = parse_toml_file(path, "answer sheet");
    std::map<std::string, std::pair<std::string, source_loc>> out;
    for (auto&& [k, v] : doc) {
        source_loc at{path, static_cast<int>(v.source().begin.line), static_cast<int>(v.source().begin.column)};
        std::string id(k.str());
        if (!find_exercise(set, id)) throw input_error(at, fmt::format("no exercise '{}' (qkv exercises lists them)", id));
        std::string text;
        if (auto s = v.value<std::string>(); s && v.is_string()) text = *s;
        else if (v.is_integer() || v.is_floating_point()) text = fmt::format("{}", *v.value<double>());
        else throw input_error(at, fmt::format("the answer to {} must be a string (or a number)", id));
        out[id] = {text, at};
    }
    return out;
}

graded grade_one(const exercise& e, const std::string& given, const std::string& sheet_dir, const mistake_book& book, lang l) {
    graded g{&e, given, "", {}, {}};
    try {
        bool file = e.kind == answer_kind::matrix && !given.empty() && given.front() != '[';
        answer ans = file ? read_answer_file(e.kind, (fs::path(sheet_dir) / given).string(), l) : parse_answer(e.kind, given, l);
        exercise_run run = run_exercise(e, l);
        verdict v = judge(e, ans, run);
        g.result = v.correct ? "correct" : "wrong";
        g.mistakes = v.mistakes;
        g.message = explain(v, e, ans, run, book, l);
    } catch (const input_error& err) {
        g.result = "unreadable";
        g.message = {err.what()};
    }
    return g;
}

std::string result_word(lang l, const std::string& r) {
    if (r == "correct") return pick(l, "正确", "correct");
    if (r == "wrong") return pick(l, "错误", "wrong");
    if (r == "unreadable") return pick(l, "无法读取", "unreadable");
    return pick(l, "未作答", "no answer");
}

}  // namespace

int cmd_grade(const args& a) {
    output_choice choice;
    std::string sheet;
    po::options_description desc("Options");
    add_options(desc, choice, true);
    desc.add_options()("sheet", po::value(&sheet), "the answer sheet: \"ID\" = \"ANSWER\" lines (a CSV path for a matrix)");
    po::positional_options_description pos;
    pos.add("sheet", 1);
    po::variables_map vm;
    if (!parse("grade", a, desc, pos, vm)) return 0;
    if (sheet.empty()) throw usage_error("which answer sheet? qkv grade SHEET.toml");
    lang l = resolve(choice).language;
    exercise_set set = load_exercises(exercises_dir());
    auto entries = read_sheet(sheet, set);
    if (entries.empty()) throw input_error(source_loc{sheet, 0, 0}, "the answer sheet has no answers (\"ID\" = \"ANSWER\" lines)");
    std::vector<int> lessons;  // a sheet covers the lessons it answers, all of their exercises
    for (auto& [id, entry] : entries) lessons.push_back(find_exercise(set, id)->lesson);
    std::vector<graded> rows;
    for (const exercise& e : set.all) {
        if (std::find(lessons.begin(), lessons.end(), e.lesson) == lessons.end()) continue;
        auto it = entries.find(e.id);
        if (it == entries.end()) rows.push_back({&e, "", "missing", {}, {}});
        else rows.push_back(grade_one(e, it->second.first, fs::path(sheet).parent_path().string(), set.book, l));
    }
    std::size_t right = std::count_if(rows.begin(), rows.end(), [](const graded& g) { return g.result == "correct"; });
    if (choice.format == "json") {
        ojson arr = ojson::array();
        for (const graded& g : rows)
            arr.push_back({{"id", g.e->id}, {"lesson", g.e->lesson}, {"kind", kind_name(g.e->kind)}, {"answer", g.given},
                           {"result", g.result}, {"mistakes", g.mistakes}, {"message", g.message}});
        write_out(ojson{{"sheet", sheet}, {"lang", lang_code(l)}, {"exercises", arr}, {"correct", right}, {"total", rows.size()}}.dump(2) + "\n");
    } else {
        std::string out = fmt::format("{}: {}\n\n", pick(l, "答题卡", "Answer sheet"), escape_controls(sheet));
        for (const graded& g : rows) {
            std::string given = g.given.empty() ? "—" : first_line(g.given, 18);
            out += fmt::format("  {:<5} {} {} {}\n", g.e->id, pad(kind_word(l, g.e->kind), 7), pad(given, 19), result_word(l, g.result));
            for (const std::string& m : g.message) out += "          " + escape_controls(m) + "\n";
        }
        out += fmt::format("\n{}: {}/{}\n", pick(l, "总分", "Total"), right, rows.size());
        write_out(out);
    }
    return right == rows.size() ? 0 : 1;
}


}  // namespace qkv::cli
