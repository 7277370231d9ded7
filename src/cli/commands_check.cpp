// qkv check: one answer judged against the exercise computed on its scenario, with what is wrong
// and which common mistake it matches; recorded in the learner's progress once it is shown.
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


}  // namespace qkv::cli
