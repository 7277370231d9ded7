// The exercise commands: exercises, exercise, check, hint, grade and progress. They read the
// exercise files, judge answers with judge.hpp, and keep the learner's progress (progress.hpp).
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include "qkv/toml_file.hpp"

#include "qkv/answer.hpp"
#include "qkv/control_text.hpp"
#include "qkv/cli.hpp"
#include "qkv/display_width.hpp"
#include "qkv/exercise.hpp"
#include "qkv/judge.hpp"
#include "qkv/progress.hpp"
#include "qkv/render_text.hpp"
#include "qkv/suggest.hpp"
#include "exercise_words.hpp"

namespace qkv::cli {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// --lang, --color, --precision, --full, and --format text|json when the command has a JSON form.
void add_options(po::options_description& desc, output_choice& c, bool with_json) {
    desc.add_options()("help,h", "show this help")
        ("lang", po::value(&c.lang), "zh or en (default: QKV_LANG, then LC_ALL / LC_MESSAGES / LANG)")
        ("color", po::value(&c.color)->default_value("auto"), "auto, always or never")
        ("precision", po::value(&c.precision)->default_value(4), "decimals shown (0 to 9)")
        ("full", po::bool_switch(&c.full), "show every row and column, never elide");
    if (with_json) desc.add_options()("format", po::value(&c.format)->default_value("text"), "text or json");
}

render_options resolve(output_choice c) {
    if (c.format.empty()) c.format = "text";
    if (c.color.empty()) c.color = "auto";
    if (c.format != "text" && c.format != "json") throw usage_error(fmt::format("--format must be text or json, not '{}'", c.format));
    c.format = "text";  // resolve_output knows text, markdown, json and html; these commands only text and json
    return resolve_output(c);
}

const exercise& need_exercise(const exercise_set& set, const std::string& id) {
    if (const exercise* e = find_exercise(set, id)) return *e;
    std::vector<std::string> ids;
    for (const exercise& e : set.all) ids.push_back(e.id);
    std::string near = nearest(id, ids);
    throw usage_error(fmt::format("no exercise '{}'{}; qkv exercises lists them", id,
                                  near.empty() ? "" : fmt::format(" (did you mean {}?)", near)));
}

progress open_progress(const std::string& path) {
    std::string warning;
    progress p = load_progress(path, &warning);
    if (!warning.empty()) fmt::print(stderr, "qkv: warning: {}\n", warning);
    return p;
}

std::map<int, std::string> lesson_titles(lang l) {
    std::map<int, std::string> out;
    for (auto& [n, path] : lesson_files(lessons_dir())) out[n] = load_lesson(path).title.in(l);
    return out;
}

std::string bar(std::size_t done, std::size_t total) {
    const std::size_t width = 10;
    std::size_t full = total ? (done * width + total / 2) / total : 0;
    std::string out;
    for (std::size_t i = 0; i < width; ++i) out += i < full ? "█" : "░";
    return out;
}

// The first line of a question or an answer, cut to fit a listing, its control characters escaped.
std::string first_line(const std::string& text, std::size_t columns) {
    std::string line = escape_controls(text.substr(0, text.find('\n')));
    if (display_width(line) <= columns) return line;
    std::string out;
    for (std::size_t i = 0; i < line.size();) {
        std::size_t len = 1;
        while (i + len < line.size() && (static_cast<unsigned char>(line[i + len]) & 0xC0) == 0x80) ++len;
        if (display_width(out + line.substr(i, len)) > columns - 1) break;
        out += line.substr(i, len);
        i += len;
    }
    return out + "…";
}

// The values an exercise shows, drawn as a lesson stage draws them, weights with their row sums.
std::string values_text(const std::vector<std::string>& names, const workspace& ws, const render_options& o) {
    std::vector<shown_value> values;
    for (const std::string& name : names) {
        auto it = ws.find(name);
        if (it == ws.end()) throw input_error(fmt::format("the exercise shows '{}', which the lesson does not compute", name));
        values.push_back({name, role::input, it->second, row_sums_of(it->second)});
    }
    return render_values_text(values, o);
}

}  // namespace

// --- exercises -------------------------------------------------------------------------------

int cmd_exercises(const args& a) {
    output_choice choice;
    int only = 0;
    po::options_description desc("Options");
    add_options(desc, choice, true);
    desc.add_options()("lesson", po::value(&only), "only the exercises of lesson N");
    po::variables_map vm;
    if (!parse("exercises", a, desc, {}, vm)) return 0;
    render_options o = resolve(choice);
    exercise_set set = load_exercises(exercises_dir());
    progress p = open_progress(progress_path());
    std::vector<const exercise*> list;
    for (const exercise& e : set.all)
        if (!only || e.lesson == only) list.push_back(&e);
    if (list.empty()) throw usage_error(fmt::format("lesson {} has no exercises; qkv exercises lists them all", only));
    // each question quotes its own run (its lesson on its scenario)
    std::map<std::string, std::string> questions;
    for (const exercise* e : list) questions[e->id] = exercise_words(e->question, *e, run_exercise(*e, o.language), o.language);
    if (choice.format == "json") {
        ojson arr = ojson::array();
        for (const exercise* e : list)
            arr.push_back({{"id", e->id}, {"lesson", e->lesson}, {"kind", kind_name(e->kind)},
                           {"question", questions[e->id]}, {"status", status_name(p.of(e->id).state)}});
        write_out(ojson{{"exercises", arr}}.dump(2) + "\n");
        return 0;
    }
    auto titles = lesson_titles(o.language);
    std::string out;
    for (std::size_t i = 0; i < list.size();) {
        int lesson = list[i]->lesson;
        std::size_t end = i, done = 0;
        for (; end < list.size() && list[end]->lesson == lesson; ++end) done += p.of(list[end]->id).state == status::correct;
        std::string heading = fmt::format(fmt::runtime(tr(o.language, "Lesson {}")), lesson);
        if (titles.count(lesson)) heading += " · " + titles[lesson];
        out += fmt::format("{}  {} {}/{}\n", heading, bar(done, end - i), done, end - i);
        for (; i < end; ++i) {
            const exercise& e = *list[i];
            out += fmt::format("  {:<5} {} {} {}\n", e.id, pad(kind_word(o.language, e.kind), 7),
                               pad(status_word(o.language, p.of(e.id).state), 10), first_line(questions[e.id], 56));
        }
        out += "\n";
    }
    out += pick(o.language, "看题：qkv exercise ID · 交答案：qkv check ID 答案 · 提示：qkv hint ID\n",
                "Read one: qkv exercise ID · answer: qkv check ID ANSWER · a hint: qkv hint ID\n");
    write_out(out);
    return 0;
}

// --- exercise ---------------------------------------------------------------------------------

int cmd_exercise(const args& a) {
    output_choice choice;
    std::string id, data;
    po::options_description desc("Options");
    add_options(desc, choice, false);
    desc.add_options()("id", po::value(&id), "the exercise, e.g. 3.2")("data", po::value(&data), "compute on another scenario file");
    po::positional_options_description pos;
    pos.add("id", 1);
    po::variables_map vm;
    if (!parse("exercise", a, desc, pos, vm)) return 0;
    if (id.empty()) throw usage_error("which exercise? give its id, e.g. 3.2 (qkv exercises lists them)");
    render_options o = resolve(choice);
    exercise_set set = load_exercises(exercises_dir());
    const exercise& e = need_exercise(set, id);
    lang l = o.language;
    exercise_run run = run_exercise(e, l, data);  // the numbers the question quotes and shows
    std::string out = fmt::format("{} {} · {} · {}", pick(l, "练习", "Exercise"), e.id,
                                  fmt::format(fmt::runtime(tr(l, "Lesson {}")), e.lesson), kind_word(l, e.kind));
    if (!e.shows.empty()) out += fmt::format(" · {} {}", tr(l, "scenario"), escape_controls(run.run.t.scenario));
    out += fmt::format("\n\n{}\n", escape_controls(exercise_words(e.question, e, run, l), true));
    for (std::size_t i = 0; i < e.choices.size(); ++i)
        out += fmt::format("{}  {}. {}\n", i ? "" : "\n", static_cast<char>('A' + i),
                           escape_controls(exercise_words(e.choices[i], e, run, l)));
    if (!e.shows.empty()) out += values_text(e.shows, run.run.ws, o);
    const progress record = open_progress(progress_path());  // kept alive: mine refers into it
    const exercise_progress& mine = record.of(e.id);
    out += fmt::format("\n{}qkv check {} …  ({})\n", pick(l, "作答：", "Answer: "), e.id, answer_form(l, e.kind));
    out += fmt::format("{}qkv hint {}  ({}/{})  ·  {}{}\n", pick(l, "提示：", "Hints: "), e.id, mine.hints, e.hints.size(),
                       pick(l, "状态：", "status: "), status_word(l, mine.state));
    write_out(out);
    return 0;
}

// --- check ------------------------------------------------------------------------------------

namespace {

// The answer as typed: words after the id joined by spaces ("100 100"); a negative number such as
// -0.5 is taken as an answer, not as an option.
std::pair<args, std::string> split_answer(const args& a) {
    args options;
    std::vector<std::string> words;
    bool after_dashes = false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::string& s = a[i];
        bool negative_number = s.size() > 1 && s[0] == '-' && (std::isdigit(static_cast<unsigned char>(s[1])) || s[1] == '.');
        if (after_dashes || negative_number) words.push_back(s);
        else if (s == "--") after_dashes = true;
        else options.push_back(s);
    }
    std::string joined;
    for (const std::string& w : words) joined += (joined.empty() ? "" : " ") + w;
    return {options, joined};
}

answer read_answer(const exercise& e, const std::string& text, const std::string& file, lang l) {
    try {
        return file.empty() ? parse_answer(e.kind, text, l) : read_answer_file(e.kind, file, l);
    } catch (const input_error& err) {
        throw usage_error(fmt::format("{} ({} {} {}: {})", err.what(), pick(l, "练习", "exercise"), e.id,
                                      pick(l, "要的是", "wants"), answer_form(l, e.kind)));
    }
}

// "S[2, 3] = 1.5669", or the expected matrix drawn as the lessons draw it.
std::string expected_text(const exercise& e, const exercise_run& r, const render_options& o) {
    switch (e.kind) {
    case answer_kind::choice: return fmt::format("{}\n", e.answer);
    case answer_kind::shape: return fmt::format("{} = {}\n", e.expected_source, r.expected.shape_str());
    case answer_kind::number: return fmt::format("{} = {:.{}f}\n", e.expected_source, r.expected.number, o.precision);
    case answer_kind::matrix: {
        workspace ws{{e.expected_source, r.expected}};
        return values_text({e.expected_source}, ws, o);
    }
    }
    return "";
}

}  // namespace

int cmd_check(const args& all) {
    auto [a, typed] = split_answer(all);
    output_choice choice;
    std::string id, file;
    std::vector<std::string> words;
    po::options_description desc("Options");
    add_options(desc, choice, false);
    desc.add_options()("id", po::value(&id), "the exercise, e.g. 3.2")
        ("answer", po::value(&words), "the answer (several words are joined: 100 100)")
        ("file", po::value(&file), "read the answer from a file (CSV for a matrix)")
        ("data", po::value<std::string>(), "compute on another scenario file");
    po::positional_options_description pos;
    pos.add("id", 1).add("answer", -1);
    po::variables_map vm;
    if (!parse("check", a, desc, pos, vm)) return 0;
    for (const std::string& w : words) typed += (typed.empty() ? "" : " ") + w;
    if (id.empty()) throw usage_error("which exercise? qkv check ID ANSWER, e.g. qkv check 3.2 1.57");
    if (typed.empty() == file.empty())
        throw usage_error(file.empty() ? "give the answer after the id, or --file FILE" : "give the answer or --file, not both");
    render_options o = resolve(choice);
    lang l = o.language;
    exercise_set set = load_exercises(exercises_dir());
    const exercise& e = need_exercise(set, id);
    answer ans = read_answer(e, typed, file, l);  // an unreadable answer stops here: progress untouched
    exercise_run run = run_exercise(e, l, vm.count("data") ? vm["data"].as<std::string>() : "");
    verdict v;
    try {
        v = judge(e, ans, run);
    } catch (const input_error& err) {
        throw usage_error(err.what());
    }
    std::string path = progress_path();
    progress p = open_progress(path);
    p.record(e.id, v.correct);
    save_progress(p, path);
    std::string out;
    if (v.correct) {
        out = fmt::format("✓ {}\n{}\n{}\n{}\n", pick(l, "正确！", "Right!"), expected_text(e, run, o),
                          pick(l, "解题过程：", "Worked solution:"), escape_controls(exercise_words(e.solution, e, run, l), true));
    } else {
        out = fmt::format("✗ {}\n", pick(l, "还不对。", "Not right yet."));
        for (const std::string& line : explain(v, e, ans, run, set.book, l, o.precision)) out += escape_controls(line) + "\n";
        out += fmt::format("{}qkv hint {}\n", pick(l, "再试一次，或者看提示：", "Try again, or ask for a hint: "), e.id);
    }
    write_out(out);
    return v.correct ? 0 : 1;
}

// --- hint -------------------------------------------------------------------------------------

int cmd_hint(const args& a) {
    output_choice choice;
    std::string id;
    po::options_description desc("Options");
    desc.add_options()("help,h", "show this help")("id", po::value(&id), "the exercise, e.g. 3.2")
        ("lang", po::value(&choice.lang), "zh or en (default: QKV_LANG, then LC_ALL / LC_MESSAGES / LANG)");
    po::positional_options_description pos;
    pos.add("id", 1);
    po::variables_map vm;
    if (!parse("hint", a, desc, pos, vm)) return 0;
    if (id.empty()) throw usage_error("which exercise? give its id, e.g. 3.2");
    lang l = resolve(choice).language;
    exercise_set set = load_exercises(exercises_dir());
    const exercise& e = need_exercise(set, id);
    exercise_run run = run_exercise(e, l);  // the numbers the hint quotes; a failure records nothing
    std::string path = progress_path();
    progress p = open_progress(path);
    exercise_progress& mine = p.by_id[e.id];
    bool more = mine.hints < static_cast<int>(e.hints.size());
    if (more) ++mine.hints;
    save_progress(p, path);
    std::size_t shown = static_cast<std::size_t>(mine.hints);
    std::string out = fmt::format("{} {}/{} · {} {}\n{}\n", pick(l, "提示", "Hint"), shown, e.hints.size(), pick(l, "练习", "exercise"),
                                  e.id, escape_controls(exercise_words(e.hints[shown - 1], e, run, l), true));
    if (!more) out += pick(l, "（这是最后一个提示了。）\n", "(That was the last hint.)\n");
    write_out(out);
    return 0;
}

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

// --- progress ---------------------------------------------------------------------------------

int cmd_progress(const args& a) {
    output_choice choice;
    bool reset = false;
    po::options_description desc("Options");
    add_options(desc, choice, true);
    desc.add_options()("reset", po::bool_switch(&reset), "forget all progress (statuses and hints)");
    po::variables_map vm;
    if (!parse("progress", a, desc, {}, vm)) return 0;
    lang l = resolve(choice).language;
    std::string path = progress_path();
    if (reset) {
        reset_progress(path);
        write_out(fmt::format("{} ({})\n", pick(l, "进度已清空", "Progress cleared"), path));
        return 0;
    }
    exercise_set set = load_exercises(exercises_dir());
    progress p = open_progress(path);
    std::map<int, std::pair<std::size_t, std::size_t>> per_lesson;  // lesson -> (correct, total)
    std::size_t right = 0, hints = 0;
    ojson arr = ojson::array();
    for (const exercise& e : set.all) {
        const exercise_progress& mine = p.of(e.id);
        per_lesson[e.lesson].second++;
        if (mine.state == status::correct) per_lesson[e.lesson].first++, right++;
        hints += static_cast<std::size_t>(mine.hints);
        arr.push_back({{"id", e.id}, {"status", status_name(mine.state)}, {"attempts", mine.attempts}, {"hints", mine.hints}});
    }
    if (choice.format == "json") {
        write_out(ojson{{"path", path}, {"exercises", arr}, {"correct", right}, {"total", set.all.size()}}.dump(2) + "\n");
        return 0;
    }
    std::string out = fmt::format("{} ({})\n\n", pick(l, "练习进度", "Progress on the exercises"), path);
    for (auto& [lesson, c] : per_lesson)
        out += fmt::format("  {}  {} {}/{}\n", pad(fmt::format(fmt::runtime(tr(l, "Lesson {}")), lesson), 10), bar(c.first, c.second),
                           c.first, c.second);
    out += fmt::format("\n{}: {}/{} · {}: {}\n", pick(l, "合计", "Total"), right, set.all.size(), pick(l, "用过的提示", "hints used"), hints);
    write_out(out);
    return 0;
}

}  // namespace qkv::cli
