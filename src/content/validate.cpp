// Checking files for their authors. Running stops at the first problem, which is right for
// running and wrong for writing: here the loaders list every problem they find instead (the one
// reader, toml_reader, in its collecting mode), so one run of `qkv validate` lists everything to fix.
#include "qkv/validate.hpp"

#include <filesystem>
#include <regex>

#include <fmt/format.h>

#include "qkv/control_text.hpp"
#include "qkv/exercise.hpp"
#include "qkv/file_check.hpp"
#include "qkv/file_words.hpp"
#include "qkv/judge.hpp"
#include "qkv/lesson.hpp"
#include "qkv/quote.hpp"
#include "qkv/scenario.hpp"
#include "qkv/scenario_gen.hpp"
#include "qkv/trace.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

problem problem_of(const input_error& e, const std::string& path) {
    if (e.where().file.empty()) return {source_loc{path, 0, 0}, e.message(), e.said_message()};
    return {e.where(), e.message(), e.said_message()};
}

// The decimals written into texts instead of quoted from the run, in both languages.
void warn_decimals(const bilingual& text, std::vector<problem>& out) {
    for (lang l : {lang::zh, lang::en})
        for (problem& p : bare_decimals(text.in(l), text.at(l))) out.push_back(std::move(p));
}

// The sentences a learner may type, as `--tokens` makes them: the fewest tokens the lesson
// accepts and the most qkv promises (64), with the scenario's d_model and heads. A quote or a
// formula that only works on the lesson's own sentence (row 3 of a 2-token sentence) shows here.
void run_on_other_sentences(const lesson& l, const scenario& own, validation& v) {
    std::size_t d_model = own.matrices.at("X").cols;
    std::size_t heads = own.heads.value_or(d_model % 2 == 0 ? 2 : 1);
    for (std::size_t n : {l.min_tokens, std::size_t{64}}) {
        scenario_spec spec{{}, d_model, heads, 1};
        for (std::size_t i = 1; i <= n; ++i) spec.tokens.push_back(fmt::format("w{}", i));
        try {
            scenario s = generate_scenario(spec);
            run_lesson(l, s, lang::zh);
            run_lesson(l, s, lang::en);
        } catch (const input_error& e) {
            problem p = problem_of(e, l.file);
            p.message = fmt::format("on a sentence of {} token{} (qkv lesson {} --tokens \"w1 … w{}\"): {}", n,
                                    n == 1 ? "" : "s", l.number, n, p.message);
            p.said = n == 1 ? said("on a sentence of {} token (qkv lesson {} --tokens \"w1 … w{}\"): {}", n, l.number, n, *p.said)
                            : said("on a sentence of {} tokens (qkv lesson {} --tokens \"w1 … w{}\"): {}", n, l.number, n, *p.said);
            v.problems.push_back(std::move(p));
        }
    }
}

// A lesson file named NN-name.toml is one of its folder's lessons, which may not share a number
// (lesson_files refuses the folder): the clashes that fall on this file, the later of two.
std::vector<problem> number_clashes(const std::string& file) {
    std::error_code ec;
    const fs::path path(file);
    if (!std::regex_match(path.filename().string(), std::regex(lesson_file_pattern))) return {};
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    std::vector<problem> out;
    for (problem& p : shared_numbers(numbered_files(dir.string(), lesson_file_pattern)))
        if (fs::equivalent(p.where.file, path, ec)) out.push_back({source_loc{file, p.where.line, p.where.column}, p.message});
    return out;
}

// Every problem the lesson loader finds; then, when there is none, the lesson is run in both
// languages on its scenario and on sentences of other lengths, so names resolve, shapes agree and
// every quote in its text is filled in.
validation check_lesson(const toml_document& doc, const std::string& data_file) {
    validation v{"lesson", "", number_clashes(doc.file), {}};
    const std::size_t clashes = v.problems.size();
    lesson l = read_lesson(doc, &v.problems);
    if (v.problems.size() > clashes) return v;
    for (const stage& st : l.stages) {
        warn_decimals(st.title, v.warnings);
        warn_decimals(st.text, v.warnings);
    }
    const std::string& scen = data_file.empty() ? l.scenario_file : data_file;
    try {
        scenario s = data_file.empty() ? load_lesson_scenario(l) : load_scenario(scen);
        run_lesson(l, s, lang::zh);
        lesson_run r = run_lesson(l, s, lang::en);
        v.summary = fmt::format("lesson {}, {} stages, run on {} and on sentences of {} and 64 tokens", l.number,
                                r.t.stages.size(), fs::path(scen).filename().string(), l.min_tokens);
        run_on_other_sentences(l, s, v);
    } catch (const input_error& e) {
        v.problems.push_back(problem_of(e, doc.file));
    }
    return v;
}

validation check_scenario(const toml_document& doc) {
    validation v{"scenario", "", {}, {}};
    try {
        scenario s = read_scenario(doc);
        const matrix& X = s.matrices.at("X");
        v.summary = fmt::format("scenario {}, {} tokens, d_model = {}", s.name, s.tokens.size(), X.cols);
    } catch (const input_error& e) {
        v.problems.push_back(problem_of(e, doc.file));
    }
    return v;
}

mistake_book the_mistakes() {
    fs::path p = fs::path(exercises_dir()) / "mistakes.toml";
    std::error_code ec;
    return fs::exists(p, ec) ? read_mistakes(read_toml_file(p.string(), translatable("mistake book"))) : mistake_book{};
}

// Every text of an exercise a student reads.
std::vector<const bilingual*> texts_of(const exercise& e) {
    std::vector<const bilingual*> out{&e.question, &e.solution};
    for (const bilingual& h : e.hints) out.push_back(&h);
    for (const bilingual& c : e.choices) out.push_back(&c);
    for (const auto& [letter, why] : e.why_not) out.push_back(&why);
    return out;
}

// An exercise on the fewest tokens it accepts (its min_tokens, or its lesson's), made as --tokens
// makes them: an index only the lesson's own sentence has (S[2, 3] of 2 tokens) shows here.
void run_on_fewest_tokens(const exercise& e, validation& v) {
    const lesson l = lesson_of(e);
    const scenario own = scenario_of(e, l);
    const std::size_t d_model = own.matrices.at("X").cols, n = std::max(e.min_tokens, l.min_tokens);
    scenario_spec spec{{}, d_model, own.heads.value_or(d_model % 2 == 0 ? 2 : 1), 1};
    for (std::size_t i = 1; i <= n; ++i) spec.tokens.push_back(fmt::format("w{}", i));
    try {
        const scenario s = generate_scenario(spec);
        for (lang language : {lang::zh, lang::en}) {
            exercise_run r = run_exercise(e, l, s, language);
            for (const bilingual* text : texts_of(e)) exercise_words(*text, e, r, language);
        }
    } catch (const input_error& err) {
        v.problems.push_back({e.where, fmt::format("exercise {} on a sentence of {} token{}: {}; declare the tokens it needs "
                                                   "(min_tokens = …)", e.id, n, n == 1 ? "" : "s", err.message())});
    }
}

// Every problem of the file; then each exercise that reads cleanly is evaluated on its lesson
// and its texts filled in, in both languages; a failing one does not hide the others.
validation check_exercises(const toml_document& doc, const std::string& data_file) {
    validation v{"exercises", "", {}, {}};
    try {
        auto all = read_exercises(doc, the_mistakes(), &v.problems);
        for (const exercise& e : all) {
            for (const bilingual* text : texts_of(e)) warn_decimals(*text, v.warnings);
            try {
                for (lang l : {lang::zh, lang::en}) {
                    exercise_run r = run_exercise(e, l, data_file);
                    for (const bilingual* text : texts_of(e)) exercise_words(*text, e, r, l);
                }
                run_on_fewest_tokens(e, v);
            } catch (const input_error& err) {
                problem p = problem_of(err, doc.file);
                if (p.where.file != doc.file) p = {e.where, fmt::format("exercise {}: {}", e.id, err.what())};
                v.problems.push_back(p);
            }
        }
        v.summary = fmt::format("{} exercises, each evaluated on its lesson", all.size());
    } catch (const input_error& e) {
        v.problems.push_back(problem_of(e, doc.file));
    }
    return v;
}

// Every string of the file (keys too) that holds a control or bidi character: it would reach the
// learner's terminal (the renderers show it escaped, which is never what the author meant).
void find_controls(const toml::node& n, const std::string& file, std::vector<problem>& out) {
    auto report = [&](std::string_view s, const toml::node& at, std::string_view what) {
        if (control_at k = first_control(s); k.length)
            out.push_back({loc_of(file, at), fmt::format("a control character ({}) in {}: it would drive the "
                                                         "learner's terminal; remove it or write what it means",
                                                         escaped_control(k), what)});
    };
    if (const auto* t = n.as_table()) {
        for (const auto& [key, v] : *t) {
            report(key.str(), v, "a key");
            find_controls(v, file, out);
        }
    } else if (const auto* a = n.as_array()) {
        for (const auto& v : *a) find_controls(v, file, out);
    } else if (const auto* str = n.as_string()) {
        report(str->get(), n, "this text");
    }
}

}  // namespace

validation validate_file(const std::string& path, const std::string& data_file) {
    std::error_code ec;
    if (auto no = unreadable_file(path))
        return {"", "", {{source_loc{path, 0, 0}, *no == "not found" ? "file not found" : *no, *no == "not found" ? said("file not found") : said_of(*no)}}, {}};
    toml_document doc;
    try {
        doc = read_toml_file(path, translatable("file"));
    } catch (const input_error& e) {
        return {"", "", {problem_of(e, path)}, {}};
    }
    const toml::table& t = doc.table;
    validation v;
    if (t.contains("stage") || t.contains("number")) v = check_lesson(doc, data_file);
    else if (t.contains("tokens") || t.contains("matrices")) v = check_scenario(doc);
    else if (t.contains("exercise") || t.contains("lesson")) v = check_exercises(doc, data_file);
    if (!v.kind.empty()) {
        find_controls(t, doc.file, v.problems);
        return v;
    }
    if (fs::path(path).filename() == "mistakes.toml") {
        validation v{"mistakes", "the mistake book", {}, {}};
        read_mistakes(doc, &v.problems);
        find_controls(t, doc.file, v.problems);  // its explanations reach every student's terminal too
        return v;
    }
    return {"", "", {{source_loc{path, 1, 1}, "neither a lesson (number, [[stage]]) nor a scenario (tokens, [matrices]) "
                                             "nor exercises (lesson, [[exercise]])"}}, {}};
}

}  // namespace qkv
