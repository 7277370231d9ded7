// Authors and tinkerers at the command line: validate lists every problem with file:line, run
// takes a lesson file from anywhere, your own sentence (--tokens, qkv scenario -o) reads back to
// the same numbers, a closed pipe ends quietly, and the documents (lessons/README.md, the man
// page, the completion) keep up with the program's own tables.
#define BOOST_TEST_MODULE cli_author
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "qkv/builtins.hpp"
#include "qkv/kernels.hpp"
#include "qkv/render_format.hpp"
#include "support/cli_suite.hpp"
#include "support/scratch.hpp"
#include "support/text.hpp"

using qkv::test::shell;

namespace {

// The line (from 1) of the first line of text containing `what`.
int line_of(const std::string& text, const std::string& what) {
    std::istringstream in(text);
    int n = 0;
    for (std::string l; std::getline(in, l);) {
        ++n;
        if (l.find(what) != std::string::npos) return n;
    }
    return 0;
}

// "file:line:" as validate prints a place.
std::string fmt_line(const std::string& file, int line) { return file + ":" + std::to_string(line) + ":"; }

std::string replaced(std::string s, const std::string& from, const std::string& to) {
    auto at = s.find(from);
    BOOST_REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
}

std::vector<std::string> command_names() {
    auto r = run_qkv({"--help"});
    std::vector<std::string> out;
    std::regex line(R"(^  ([a-z]+) )");
    std::istringstream in(r.out);
    for (std::string l; std::getline(in, l);) {
        std::smatch m;
        if (std::regex_search(l, m, line)) out.push_back(m[1]);
    }
    return out;
}

nlohmann::json stage_value(const nlohmann::json& trace, std::size_t stage, const std::string& name) {
    for (auto& v : trace["stages"][stage]["values"])
        if (v["name"] == name) return v;
    return {};
}

}  // namespace

BOOST_AUTO_TEST_CASE(validate_lists_every_problem_of_every_file_with_its_line) {
    qkv::test::scratch_dir d{"author"};
    std::string scores = read_file("lessons/03-scores.toml");
    // Two problems in two stages of one file: a formula that does not parse, a missing language.
    std::string bad = replaced(scores, "formula = \"K_t = K^T\"", "formula = \"K_t = K^^T\"");
    bad = replaced(bad, "title = { zh = \"分数矩阵 S = Q·Kᵀ\", en", "title = { en");
    write_file(d.path / "bad.toml", bad);
    // A lesson that parses but whose shapes do not agree when it runs.
    std::string shape = replaced(scores, "\nS = Q @ K^T\nP_ind", "\nS = Q @ K\nP_ind");
    write_file(d.path / "shape.toml", shape);
    // A scenario with 2 rows of X for 3 tokens.
    write_file(d.path / "scen.toml", "tokens = [\"a\", \"b\", \"c\"]\n[matrices]\nX = [[1.0, 2.0],\n     [3.0, 4.0]]\n");

    auto p = [&](const char* f) { return (d.path / f).string(); };
    auto r = run_qkv({"validate", p("bad.toml"), "lessons/01-simplified.toml", p("shape.toml"), "data/apple.toml",
                      p("scen.toml"), p("missing.toml")});
    BOOST_TEST(r.status == 1);
    BOOST_TEST(r.err.empty());
    int parse_line = line_of(bad, "K^^T"), zh_line = line_of(bad, "title = { en = \"The score matrix");
    int shape_line = 0;
    {  // the line that is the formula's first statement alone, "S = Q @ K"
        std::istringstream in(shape);
        int n = 0;
        for (std::string l; std::getline(in, l);)
            if (++n, l == "S = Q @ K") shape_line = n;
    }
    // The column of the parse error: the formula's text starts after `formula = "`, column 12;
    // "K_t = K" is 7 characters, so the lone '^' is at column 19.
    BOOST_TEST(r.out.find(fmt_line(p("bad.toml"), parse_line) + "19: expected 'T' after '^'") != std::string::npos, r.out);
    BOOST_TEST(r.out.find(fmt_line(p("bad.toml"), zh_line)) != std::string::npos);
    BOOST_TEST(r.out.find("the Chinese (zh) text is missing") != std::string::npos);
    BOOST_TEST(r.out.find(fmt_line(p("shape.toml"), shape_line)) != std::string::npos);
    BOOST_TEST(r.out.find("Q is [3, 4], K is [3, 4]") != std::string::npos);
    BOOST_TEST(r.out.find(p("scen.toml") + ":3:5:") != std::string::npos);  // X's rows start on line 3, after "X = "
    BOOST_TEST(r.out.find("X has 2 rows but there are 3 tokens") != std::string::npos);
    BOOST_TEST(r.out.find(p("missing.toml") + ": file not found") != std::string::npos);
    BOOST_TEST(r.out.find("lessons/01-simplified.toml: ok") != std::string::npos);
    BOOST_TEST(r.out.find("data/apple.toml: ok") != std::string::npos);
    BOOST_TEST(r.out.find("5 problems in 4 of 6 files") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(every_shipped_file_validates_and_so_does_the_readme_example) {
    std::vector<std::string> args{"validate"};
    for (auto dir : {"lessons", "data", "lessons/exercises"})
        for (auto& e : fs::directory_iterator(dir))
            if (e.path().extension() == ".toml") args.push_back(e.path().string());
    auto r = run_qkv(args);
    BOOST_TEST(r.status == 0, r.out);
    // The first TOML block of lessons/README.md is a whole lesson: it must be a good one.
    qkv::test::scratch_dir d{"author"};
    std::string readme = read_file("lessons/README.md");
    auto a = readme.find("```toml\n"), b = readme.find("```", a + 8);
    BOOST_REQUIRE(a != std::string::npos);
    write_file(d.path / "20-example.toml", readme.substr(a + 8, b - a - 8));
    auto v = run_qkv({"validate", (d.path / "20-example.toml").string()});
    BOOST_TEST(v.status == 0, v.out);
    auto none = run_qkv({"validate"});
    BOOST_TEST(none.status == 2);
}

BOOST_AUTO_TEST_CASE(run_takes_a_lesson_file_from_anywhere_with_a_scenario_beside_it) {
    qkv::test::scratch_dir d{"author"};
    fs::copy_file("lessons/03-scores.toml", d.path / "my-scores.toml");
    auto mine = run_qkv({"run", (d.path / "my-scores.toml").string(), "--format", "json"});
    auto shipped = run_qkv({"lesson", "3", "--format", "json"});
    BOOST_TEST(mine.status == 0, mine.err);
    BOOST_TEST(mine.out == shipped.out);  // the same file, run from elsewhere: the same trace

    // An author's own scenario beside the lesson: X = [[1, 0], [0, 2]], W_Q = W_K = I, so in the
    // first stage Q = X @ I = X and K = X.
    write_file(d.path / "tiny.toml", "name = \"tiny\"\ntokens = [\"a\", \"b\"]\n[matrices]\nX = [[1.0, 0.0], [0.0, 2.0]]\n"
                                     "W_Q = [[1.0, 0.0], [0.0, 1.0]]\nW_K = [[1.0, 0.0], [0.0, 1.0]]\n");
    std::string lesson = replaced(read_file("lessons/03-scores.toml"), "number = 3\n", "number = 3\nscenario = \"tiny.toml\"\n");
    write_file(d.path / "uses-tiny.toml", lesson);
    auto r = run_qkv({"run", (d.path / "uses-tiny.toml").string(), "--format", "json"});
    BOOST_REQUIRE_EQUAL(r.status, 0);
    auto j = nlohmann::json::parse(r.out);
    BOOST_TEST(j["scenario"] == "tiny");
    BOOST_TEST((stage_value(j, 0, "Q")["data"] == nlohmann::json::parse("[[1.0, 0.0], [0.0, 2.0]]")));
    auto missing = run_qkv({"run", (d.path / "nope.toml").string()});
    BOOST_TEST(missing.status == 2);
    BOOST_TEST(missing.err.find("nope.toml") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_written_scenario_reads_back_to_the_same_numbers) {
    qkv::test::scratch_dir d{"author"};
    fs::path file = d.path / "mine.toml";
    auto w = run_qkv({"scenario", "--tokens", "我 爱 吃 苹果", "--seed", "7", "-o", file.string()});
    BOOST_TEST(w.status == 0, w.err);
    BOOST_TEST(w.out.empty());
    auto out = run_qkv({"scenario", "--tokens", "我 爱 吃 苹果", "--seed", "7"});
    BOOST_TEST(read_file(file) == out.out);  // -o writes what standard output shows
    BOOST_TEST(std::distance(fs::directory_iterator(d.path), fs::directory_iterator{}) == 1);  // no temporary left

    auto from_file = run_qkv({"lesson", "1", "--data", file.string(), "--format", "json"});
    auto generated = run_qkv({"lesson", "1", "--tokens", "我 爱 吃 苹果", "--seed", "7", "--format", "json"});
    BOOST_REQUIRE_EQUAL(from_file.status, 0);
    BOOST_REQUIRE_EQUAL(generated.status, 0);
    auto X_file = stage_value(nlohmann::json::parse(from_file.out), 0, "X")["data"];
    auto X_gen = stage_value(nlohmann::json::parse(generated.out), 0, "X")["data"];
    BOOST_TEST(X_file == X_gen);  // exactly: the JSON holds each float's shortest round-trip text
    // And the numbers are the seeded generator's (stream seed·5 = 35), rounded by hand to 2 decimals.
    qkv::matrix E = qkv::kernels::randn(4, 4, 35);
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t c = 0; c < 4; ++c)
            BOOST_TEST(std::fabs(X_file[i][c].get<double>() - std::round(E(i, c) * 100.0) / 100.0) < 1e-6);
    auto other = run_qkv({"scenario", "--tokens", "我 爱 吃 苹果", "--seed", "8"});
    BOOST_TEST(other.out != out.out);
}

BOOST_AUTO_TEST_CASE(scenario_output_is_whole_or_not_at_all) {
    qkv::test::scratch_dir d{"author"};
    fs::path file = d.path / "s.toml";
    write_file(file, "old contents\n");
    BOOST_TEST(run_qkv({"scenario", "--tokens", "a b", "-o", file.string()}).status == 0);
    BOOST_TEST(read_file(file).find("tokens = [\"a\", \"b\"]") != std::string::npos);
    BOOST_TEST(read_file(file).find("old contents") == std::string::npos);
    // A target that cannot be replaced (a folder) fails, and leaves no temporary file behind.
    fs::create_directory(d.path / "dir.toml");
    auto r = run_qkv({"scenario", "--tokens", "a b", "-o", (d.path / "dir.toml").string()});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    BOOST_TEST(std::distance(fs::directory_iterator(d.path), fs::directory_iterator{}) == 2);  // s.toml, dir.toml
    auto nowhere = run_qkv({"scenario", "--tokens", "a b", "-o", (d.path / "no" / "such" / "x.toml").string()});
    BOOST_TEST(nowhere.status == 2);
    BOOST_TEST(!fs::exists(d.path / "no"));
}

BOOST_AUTO_TEST_CASE(own_sentence_is_printed_first_and_runs_every_lesson) {
    auto text = run_qkv({"lesson", "1", "--tokens", "a b c", "--color", "never"});
    BOOST_TEST(text.status == 0);
    BOOST_TEST(text.out.starts_with("# qkv scenario --tokens 'a b c' --d-model 4 --heads 2 --seed 1"));
    BOOST_TEST(text.out.find("X = [  # [3, 4]") < text.out.find("Lesson 1"));
    auto md = run_qkv({"lesson", "1", "--tokens", "a b c", "--format", "markdown"});
    BOOST_TEST(md.out.starts_with("```toml\n# qkv scenario"));
    auto json = run_qkv({"lesson", "1", "--tokens", "a b c", "--format", "json"});
    BOOST_TEST(nlohmann::json::parse(json.out)["scenario"] == "a b c");  // nothing before the JSON
    BOOST_TEST(run_qkv({"lesson", "1", "--tokens", "a b c"}).out == text.out);  // same seed, same numbers

    auto list = nlohmann::json::parse(run_qkv({"list", "--format", "json"}).out);
    for (auto& l : list["lessons"]) {
        int n = l["number"].get<int>();
        auto r = run_qkv({"lesson", std::to_string(n), "--tokens", "我 爱 吃 苹果", "--d-model", "8", "--heads", "2", "--format", "json"});
        BOOST_TEST(r.status == 0, "lesson " << n << ": " << r.err);
    }
    for (auto args : std::vector<std::vector<std::string>>{{"lesson", "1", "--tokens", "a", "--d-model", "6", "--heads", "4"},
                                                           {"lesson", "1", "--seed", "3"},
                                                           {"lesson", "1", "--tokens", "a", "--data", "data/apple.toml"},
                                                           {"lesson", "1", "--tokens", "  "},
                                                           {"scenario"}}) {
        auto r = run_qkv(args);
        BOOST_TEST(r.status == 2);
        BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err);
    }
}

BOOST_AUTO_TEST_CASE(a_pipe_closed_early_ends_quietly) {
    // `qkv lesson all | head -c 100`: the reader goes away after 100 bytes.
    int out[2], err[2];
    BOOST_REQUIRE(pipe(out) == 0 && pipe(err) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], 1), dup2(err[1], 2);
        for (int fd : {out[0], out[1], err[0], err[1]}) close(fd);
        const char* bin = std::getenv("QKV_BIN");
        execl(bin, bin, "lesson", "all", "--format", "markdown", static_cast<char*>(nullptr));
        _exit(127);
    }
    close(out[1]), close(err[1]);
    char buf[100];
    BOOST_TEST(read(out[0], buf, sizeof buf) > 0);
    close(out[0]);
    std::string errors;
    for (ssize_t n; (n = read(err[0], buf, sizeof buf)) > 0;) errors.append(buf, static_cast<std::size_t>(n));
    close(err[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    BOOST_TEST(WIFEXITED(status));  // not killed by SIGPIPE
    BOOST_TEST(WEXITSTATUS(status) == 141);
    BOOST_TEST(errors.empty(), errors);
    // Through a real shell pipeline too: nothing on standard error.
    std::string bin = std::getenv("QKV_BIN");
    BOOST_TEST(shell("\"" + bin + "\" lesson 1 2>&1 >/dev/null | head -n 1; \"" + bin + "\" lesson all 2>&1 | head -n 1 >/dev/null; echo done") == "done\n");
}

BOOST_AUTO_TEST_CASE(version_and_help_topics) {
    auto v = run_qkv({"--version"});
    BOOST_TEST(v.status == 0);
    BOOST_TEST(std::regex_match(v.out, std::regex(R"(qkv \d+\.\d+\.\d+\n)")), v.out);
    BOOST_TEST(run_qkv({"help", "lesson"}).out == run_qkv({"lesson", "--help"}).out);
    BOOST_TEST(run_qkv({"help", "formulas"}).out == run_qkv({"formulas"}).out);
    BOOST_TEST(run_qkv({"lesson", "--help"}).out.find("--present") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(bench_reports_both_peaks_and_which_kernels_ran) {
    // Small sizes, one run each: this checks what the report says and that its arithmetic holds,
    // never a time. GFLOP/s is the formulas' work over the time: 4 projections of 2·n·d² and
    // QKᵀ and A·V of 2·n²·d each (n = 64, d = 512: 4·2·64·512² + 2·2·64²·512 = 134 217 728 + 8 388 608 = 142 606 336 FLOP).
    const auto r = run_qkv({"bench", "--n", "64", "--impl", "blas,fused", "--format", "json", "--repeats", "1"});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const std::string kernels = j.at("fused_kernels");
    BOOST_TEST((kernels == "avx512" || kernels == "avx2" || kernels == "plain"), kernels);
    const double machine = j.at("machine_peak_gflops"), sgemm = j.at("peak_gflops");
    BOOST_TEST(machine > 0.0);
    BOOST_TEST(sgemm > 0.0);
    BOOST_TEST(!j.at("openblas_corename").get<std::string>().empty());
    BOOST_TEST_REQUIRE(j.at("results").size() == 2u);
    for (const auto& row : j.at("results")) {
        const double ms = row.at("ms"), gflops = row.at("gflops");
        BOOST_TEST(std::fabs(gflops - 142606336.0 / (ms / 1e3) / 1e9) <= 1e-6 * gflops, row.dump());
        BOOST_TEST(std::fabs(row.at("percent_of_machine_peak").get<double>() - 100 * gflops / machine) <= 1e-6 * gflops);
        BOOST_TEST(std::fabs(row.at("percent_of_peak").get<double>() - 100 * gflops / sgemm) <= 1e-6 * gflops);
    }
    const auto text = run_qkv({"bench", "--n", "64", "--impl", "fused", "--repeats", "1"});
    BOOST_TEST(text.out.find(fmt::format("qkv's own {} tile kernels, not OpenBLAS", kernels)) != std::string::npos, text.out);
    // --kernels pins a build: plain runs on any processor
    const auto plain = run_qkv({"bench", "--n", "64", "--impl", "fused", "--format", "json", "--repeats", "1", "--kernels", "plain"});
    BOOST_TEST_REQUIRE(plain.status == 0, plain.err);
    BOOST_TEST(nlohmann::json::parse(plain.out).at("fused_kernels") == "plain");
    const auto bad = run_qkv({"bench", "--kernels", "avx1024"});
    BOOST_TEST(bad.status == 2);
#if defined(__x86_64__)
    BOOST_TEST(bad.err == "qkv bench: --kernels must be avx512, avx2 or plain, not 'avx1024'\n", bad.err);
#else
    // the x86-64 builds are not compiled here: only plain is offered, and avx2 is no build either
    BOOST_TEST(bad.err == "qkv bench: --kernels must be plain, not 'avx1024'\n", bad.err);
    BOOST_TEST(run_qkv({"bench", "--kernels", "avx2"}).err == "qkv bench: --kernels must be plain, not 'avx2'\n");
#endif
}

BOOST_AUTO_TEST_CASE(every_builtin_is_listed_by_the_program_and_in_the_lesson_guide) {
    auto f = run_qkv({"formulas"});
    std::string guide = read_file("lessons/README.md");
    BOOST_REQUIRE(!guide.empty());
    for (const auto& b : qkv::builtins()) {
        BOOST_TEST(f.out.find(b.signature) != std::string::npos, b.name << " missing from qkv formulas");
        BOOST_TEST(guide.find("`" + b.name + "(") != std::string::npos, b.name << " missing from lessons/README.md");
    }
}

BOOST_AUTO_TEST_CASE(the_man_page_covers_every_command_and_renders_cleanly) {
    std::string page = read_file("doc/qkv.1");
    auto a = page.find(".SH COMMANDS"), b = page.find(".SH EXIT STATUS");
    BOOST_REQUIRE(a != std::string::npos && b != std::string::npos);
    std::string commands = page.substr(a, b - a);
    auto names = command_names();
    BOOST_TEST(names.size() >= 10u);
    for (const auto& n : names) BOOST_TEST(std::regex_search(commands, std::regex("\\.B[IR]? \"?" + n + "\\b")), n);
    if (shell("command -v man").empty()) return;
    BOOST_TEST(shell("MANWIDTH=80 man --warnings -l doc/qkv.1 2>&1 >/dev/null") == "");
    BOOST_TEST(shell("MANWIDTH=80 man -l doc/qkv.1 2>/dev/null").find("qkv - self-attention") != std::string::npos);
}

// The output formats are one table (render_format.hpp). Each command's --help names those it
// writes, and only names from the table; where the man page's paragraph of a command names formats
// after --format, they are ones its --help names, and a list of them (two or more) is all of them;
// each completion script picks the formats out of --help with the table's names, every one.
BOOST_AUTO_TEST_CASE(help_man_page_and_completions_name_the_formats_of_the_table) {
    std::vector<std::string> table;
    for (const qkv::format_entry& e : qkv::format_table()) table.emplace_back(e.name);
    const std::string alternatives = [&] {
        std::string out;
        for (const auto& n : table) out += (out.empty() ? "" : "|") + n;
        return out;
    }();
    // the names of the table that occur as words in text, in the table's order
    auto named_in = [&](const std::string& text) {
        std::vector<std::string> out;
        for (const auto& n : table)
            if (std::regex_search(text, std::regex("\\b" + n + "\\b"))) out.push_back(n);
        return out;
    };
    const std::string page = read_file("doc/qkv.1");
    const std::string commands = page.substr(page.find(".SH COMMANDS"), page.find(".SH EXIT STATUS") - page.find(".SH COMMANDS"));
    for (const auto& cmd : command_names()) {
        const std::string help = run_qkv({cmd, "--help"}).out;
        std::smatch line;
        if (!std::regex_search(help, line, std::regex("\\n *--format[^\\n]*"))) continue;
        const std::vector<std::string> writes = named_in(line.str());
        BOOST_TEST(!writes.empty(), cmd << ": " << line.str());
        BOOST_TEST(writes.front() == "text", cmd);  // the default, first
        // the command's paragraph in the man page: from its heading to the next command's
        std::smatch head;
        if (!std::regex_search(commands, head, std::regex("\\.B[IR]? \"?" + cmd + "\\b"))) continue;
        const std::size_t from = std::size_t(head.position(0)) + 2;
        std::size_t to = commands.size();
        for (const auto& other : command_names()) {
            std::smatch o;
            const std::string rest = commands.substr(from);
            if (other != cmd && std::regex_search(rest, o, std::regex("\\n\\.TP\\n\\.B[IR]? \"?" + other + "\\b")))
                to = std::min(to, from + std::size_t(o.position(0)));
        }
        const std::string paragraph = commands.substr(from, to - from);
        const std::regex mention(R"(\\-\\-format[" ]*\n?([a-z|, ]+))");
        for (std::sregex_iterator m(paragraph.begin(), paragraph.end(), mention), end; m != end; ++m) {
            const std::vector<std::string> man = named_in((*m)[1].str());
            for (const auto& f : man)
                BOOST_TEST((std::find(writes.begin(), writes.end(), f) != writes.end()), cmd << ": the man page names " << f);
            if (man.size() >= 2) BOOST_TEST(man == writes, cmd << ": the man page lists " << (*m)[1].str());
        }
    }
    // each completion script's pattern of format names is the table's
    for (const char* script : {"doc/qkv.bash", "doc/_qkv", "doc/qkv.fish"}) {
        const std::string text = read_file(script);
        std::smatch m;
        BOOST_REQUIRE_MESSAGE(std::regex_search(text, m, std::regex(R"(\((?:\?:)?((?:[a-z]+\|)+[a-z]+)\))")), script);
        BOOST_TEST(m[1].str() == alternatives, script << " picks " << m[1].str());
    }
}

BOOST_AUTO_TEST_CASE(bash_completes_commands_lessons_and_options) {
    std::string bin = std::getenv("QKV_BIN");
    auto complete = [&](const std::string& words, int cword) {
        return shell("bash -c 'source doc/qkv.bash; COMP_WORDS=(\"" + bin + "\" " + words + "); COMP_CWORD=" +
                     std::to_string(cword) + "; _qkv; echo \"${COMPREPLY[*]}\"'");
    };
    BOOST_TEST(complete("le", 1) == "lesson\n");
    BOOST_TEST(complete("va", 1) == "validate\n");
    BOOST_TEST(complete("lesson soft", 2) == "softmax\n");
    BOOST_TEST(complete("lesson 3 --pre", 3) == "--precision --present\n");
    BOOST_TEST(complete("lesson 3 --format \"\"", 4) == "text markdown json html\n");
    BOOST_TEST(complete("grade s.toml --format \"\"", 4) == "text json csv\n");
    BOOST_TEST(complete("train --format \"\"", 3) == "text json\n");
    // the formats each command's --help names: markdown and html were offered for these, and refused
    BOOST_TEST(complete("bench --format \"\"", 3) == "text json\n");
    BOOST_TEST(complete("exercise 3.1 --format \"\"", 4) == "text json\n");
    BOOST_TEST(complete("train --task \"\"", 3) == "induction reverse copy\n");
    BOOST_TEST(complete("train --ini", 2) == "--init-embedding --init-gain --init-position\n");
    // exercise ids, from the exercise files (the ids of lesson 3 there, counted by the test)
    std::string ids;
    for (int k = 1; k <= 9; ++k)
        if (qkv::test::read_file("lessons/exercises/03.toml").find("id = \"3." + std::to_string(k) + "\"") != std::string::npos)
            ids += (ids.empty() ? "" : " ") + ("3." + std::to_string(k));
    BOOST_TEST(complete("hint 3.", 2) == ids + "\n");
    BOOST_TEST(complete("solution 9.", 2).find("9.1") != std::string::npos);
}

// The same answers from the zsh and fish completions (doc/_qkv, doc/qkv.fish). zsh's completion
// system needs a terminal, so its compadd and _files are stood in for by functions that print what
// they are given: this checks what _qkv offers, not zsh's menu. fish answers `complete -C` itself.
BOOST_AUTO_TEST_CASE(zsh_and_fish_complete_as_bash_does) {
    const std::string bin = std::getenv("QKV_BIN");
    const std::vector<std::pair<std::string, std::string>> cases{
        {"le", "lesson"}, {"lesson soft", "softmax"}, {"lesson 3 --pre", "--precision --present"},
        {"grade s.toml --format ''", "text json csv"}, {"train --task ''", "induction reverse copy"},
        {"hint 3.", "3.1 3.2 3.3 3.4"}};
    if (shell("command -v zsh").empty()) {
        BOOST_TEST_MESSAGE("zsh is not installed (.ci/deps --tests installs it): its completion is not tested");
    } else {
        for (const auto& [words, want] : cases) {
            std::size_t current = 2 + static_cast<std::size_t>(std::count(words.begin(), words.end(), ' '));
            std::string script = "compadd() { local -a o; if [[ $1 == -a ]]; then o=(${(P)2}); else o=(\"$@\"); fi; "
                                 "print -r -- ${(M)o:#${PREFIX}*}; }; _files() { print -r -- FILES $@; }; "
                                 "source doc/_qkv >/dev/null 2>&1; words=(\"" + bin + "\" " + words + "); CURRENT=" +
                                 std::to_string(current) + "; PREFIX=${words[CURRENT]}; _qkv";
            BOOST_TEST(shell("zsh -f -c '" + std::regex_replace(script, std::regex("'"), "'\\''") + "'") == want + "\n", words);
        }
    }
    if (shell("command -v fish").empty()) {
        BOOST_TEST_MESSAGE("fish is not installed (.ci/deps --tests installs it): its completion is not tested");
        return;
    }
    qkv::test::scratch_dir home{"fish"};
    const std::string dir = fs::path(bin).parent_path().string();
    for (const auto& [words, want] : cases) {
        std::string line = "qkv " + std::regex_replace(words, std::regex("''"), "");
        std::string got = shell("HOME='" + home.path.string() + "' XDG_CONFIG_HOME='" + home.path.string() + "' PATH='" + dir +
                                ":'\"$PATH\" fish --no-config -c 'source doc/qkv.fish; complete -C\"" + line + "\"' | cut -f1 | sort | tr '\\n' ' '");
        std::vector<std::string> sorted;
        std::istringstream in(want);
        for (std::string w; in >> w;) sorted.push_back(w);
        std::sort(sorted.begin(), sorted.end());
        std::string expect;
        for (const auto& w : sorted) expect += w + " ";
        BOOST_TEST(got == expect, words);
    }
}
