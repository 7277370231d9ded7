// The fuzz targets' bodies, one function per reader of hand-written input, shared by the libFuzzer
// targets (fuzz_*.cpp) and by tests/test_fuzz_regressions.cpp, which replays every input the
// fuzzer once broke on through exactly the same code. Bad input may only surface as input_error.
#pragma once

#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "fuzz_common.hpp"
#include "qkv/answer.hpp"
#include "qkv/csv.hpp"
#include "qkv/error.hpp"
#include "qkv/exercise.hpp"
#include "qkv/formula.hpp"
#include "qkv/lesson.hpp"
#include "qkv/progress.hpp"
#include "qkv/render_html.hpp"
#include "qkv/render_json.hpp"
#include "qkv/render_markdown.hpp"
#include "qkv/render_text.hpp"
#include "qkv/scenario.hpp"
#include "qkv/toml_file.hpp"
#include "qkv/trace.hpp"
#include "qkv_config.hpp"

namespace qkv::fuzz {

// What became of one input. An invariant broken on an accepted input traps (a crash to the fuzzer).
enum class outcome { accepted, refused, skipped };

inline const scenario& apple() {
    static const scenario s = load_scenario(std::string(QKV_SOURCE_ROOT) + "/data/apple.toml");
    return s;
}

// Formula text, parsed and run on the 苹果很甜 workspace with sub-steps recorded.
inline outcome formula_input(const std::uint8_t* data, std::size_t size) {
    static const workspace base = initial_workspace(apple());
    std::string_view text = text_of(data, size);
    if (!small_numbers(text)) return outcome::skipped;
    try {
        formula f = parse_formula(text, {"fuzz.toml", 3, 11});
        for (const statement& st : f.statements) names_read(*st.rhs);
        workspace ws = base;
        std::vector<sub_step> steps;
        eval_context ctx{{}, "fuzz", "", &steps};
        run_formula(f, ws, ctx);
        return outcome::accepted;
    } catch (const input_error&) {
        return outcome::refused;
    }
}

// A lesson file, loaded from disk as `qkv run` does; when it loads, run on 苹果很甜 in both
// languages and rendered in every format.
inline outcome lesson_input(const std::uint8_t* data, std::size_t size) {
    if (!small_numbers(text_of(data, size))) return outcome::skipped;
    std::string path = write_input("99-fuzz.toml", data, size);
    try {
        lesson l = load_lesson(path);
        for (lang language : {lang::en, lang::zh}) {
            lesson_run r = run_lesson(l, apple(), language);
            render_options o;
            o.language = language;
            o.color = language == lang::zh;
            render_text(r.t, o);
            render_markdown(r.t, o);
            render_json(r.t);
            render_html({r.t}, o);
        }
        return outcome::accepted;
    } catch (const input_error&) {
        return outcome::refused;
    }
}

// A scenario file, in a folder that also holds a good CSV matrix (x.csv) it may name.
inline outcome scenario_input(const std::uint8_t* data, std::size_t size) {
    static const bool csv_written = [] {
        std::ofstream(scratch_dir() + "/x.csv") << "1, 2, 3, 4\n5 6 7 8\n-1.5e-3,0,.5,9\n";
        return true;
    }();
    (void)csv_written;
    std::string path = write_input("scenario.toml", data, size);
    try {
        initial_workspace(load_scenario(path));
        return outcome::accepted;
    } catch (const input_error&) {
        return outcome::refused;
    }
}

// Matrix text as numpy.savetxt writes it.
inline outcome csv_input(const std::uint8_t* data, std::size_t size) {
    try {
        matrix m = parse_csv_matrix(text_of(data, size), "fuzz.csv");
        if (m.data.size() != m.rows * m.cols || m.rows == 0) __builtin_trap();
        for (float x : m.data)
            if (!std::isfinite(x)) __builtin_trap();
        return outcome::accepted;
    } catch (const input_error&) {
        return outcome::refused;
    }
}

// A learner's answer: the first byte picks the kind (choice, shape, number, matrix), the rest is
// the text typed. Whatever is accepted must be a well-formed, finite answer.
inline outcome answer_input(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return outcome::skipped;
    auto kind = static_cast<answer_kind>(data[0] % 4);
    try {
        answer a = parse_answer(kind, text_of(data + 1, size - 1));
        bool ok = true;
        switch (kind) {
        case answer_kind::choice: ok = a.choice >= 'A' && a.choice <= 'D'; break;
        case answer_kind::shape: ok = !a.shape.empty() && !shape_text(a.shape).empty(); break;
        case answer_kind::number: ok = std::isfinite(a.number); break;
        case answer_kind::matrix:
            ok = a.m.data.size() == a.m.rows * a.m.cols && a.m.rows > 0 && a.m.cols > 0;
            for (float x : a.m.data) ok = ok && std::isfinite(x);
            break;
        }
        if (!ok) __builtin_trap();
        return outcome::accepted;
    } catch (const input_error&) {
        return outcome::refused;
    }
}

// An exercise file, read against the real mistake vocabulary as `qkv validate` reads it.
inline outcome exercise_input(const std::uint8_t* data, std::size_t size) {
    static const mistake_book book = [] {
        std::string path = std::string(QKV_SOURCE_ROOT) + "/lessons/exercises/mistakes.toml";
        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return parse_mistakes(text.str(), path);
    }();
    try {
        parse_exercises(text_of(data, size), "99.toml", book);
        return outcome::accepted;
    } catch (const input_error&) {
        return outcome::refused;
    }
}

// Any TOML text, keys above all (dotted, quoted, under headers, in inline tables): the one parser
// every reader goes through, which must refuse what would exhaust the stack before toml++ recurses.
inline outcome toml_input(const std::uint8_t* data, std::size_t size) {
    try {
        parse_toml_text(text_of(data, size), "fuzz.toml");
        return outcome::accepted;
    } catch (const input_error&) {
        return outcome::refused;
    }
}

// A progress file as a hand edit or an older qkv may leave it. An unreadable one is set aside
// (accepted, with a warning); what is read must hold counts from 0 up, clamped to each real
// exercise's hints, and must come back the same after it is written.
inline outcome progress_input(const std::uint8_t* data, std::size_t size) {
    static const exercise_set set = load_exercises(std::string(QKV_SOURCE_ROOT) + "/lessons/exercises");
    for (const auto& f : std::filesystem::directory_iterator(scratch_dir()))  // files set aside by earlier runs
        if (f.path().filename().string().starts_with("progress.json.corrupt")) std::filesystem::remove(f.path());
    const std::string path = write_input("progress.json", data, size);
    try {
        std::string warning, again;
        progress p = load_progress(path, &warning);
        for (const auto& [id, e] : p.by_id)
            if (e.attempts < 0 || e.hints < 0) __builtin_trap();
        for (const exercise& e : set.all)
            if (p.of(e).hints < 0 || static_cast<std::size_t>(p.of(e).hints) > e.hints.size()) __builtin_trap();
        save_progress(p, path);
        progress back = load_progress(path, &again);
        if (!again.empty() || back.by_id.size() != p.by_id.size() || back.lessons_read != p.lessons_read) __builtin_trap();
        for (const auto& [id, e] : p.by_id) {
            const exercise_progress& b = back.by_id.at(id);
            if (b.state != e.state || b.attempts != e.attempts || b.hints != e.hints || b.solution_seen != e.solution_seen)
                __builtin_trap();
        }
        return warning.empty() ? outcome::accepted : outcome::refused;
    } catch (const input_error&) {
        return outcome::refused;
    }
}

}  // namespace qkv::fuzz
