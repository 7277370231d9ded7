// The commands for authors and tinkerers: `qkv validate` (every problem of lesson, scenario and
// exercise files, with file:line), `qkv scenario` (a scenario for your own sentence) and
// `qkv formulas` (the formula language and its built-ins, from the one table).
#include <fmt/format.h>

#include "qkv/builtins.hpp"
#include "qkv/cli.hpp"
#include "qkv/scenario_gen.hpp"
#include "qkv/terminal.hpp"
#include "qkv/validate.hpp"
#include "qkv/wrap.hpp"
#include "file_output.hpp"

namespace qkv::cli {
namespace {

namespace po = boost::program_options;

}  // namespace

int cmd_validate(const args& a, const console& io) {
    std::vector<std::string> files;
    std::string data;
    po::options_description desc("Options");
    add_help_option(desc);
    desc.add_options()
        ("file", po::value(&files), "lesson, scenario or exercise files (.toml)")
        ("data", po::value(&data), "run lessons on this scenario instead of their own");
    if (!parse(io, "validate", a, desc, "file")) return 0;
    if (files.empty()) throw usage_error("which files? e.g. qkv validate lessons/*.toml data/*.toml");
    std::string out;
    std::size_t problems = 0, bad_files = 0;
    for (const std::string& f : files) {
        validation v = validate_file(f, data);
        if (v.problems.empty()) out += fmt::format("{}: ok ({})\n", f, v.summary);
        for (const problem& p : v.problems) out += p.str() + "\n";
        for (const problem& w : v.warnings) out += w.str() + "\n";
        problems += v.problems.size();
        bad_files += !v.problems.empty();
    }
    if (problems)
        out += fmt::format("{} problem{} in {} of {} file{}\n", problems, problems == 1 ? "" : "s", bad_files, files.size(),
                           files.size() == 1 ? "" : "s");
    io.print(out);
    return problems ? 1 : 0;
}

int cmd_scenario(const args& a, const console& io) {
    std::string tokens, output;
    scenario_spec spec;
    unsigned long long seed = 1;
    po::options_description desc("Options");
    add_help_option(desc);
    desc.add_options()
        ("tokens", po::value(&tokens), "the sentence, tokens separated by spaces: \"我 爱 吃 苹果\"")
        ("d-model", po::value(&spec.d_model)->default_value(4), "embedding width")
        ("heads", po::value(&spec.heads)->default_value(2), "heads; must divide --d-model")
        ("seed", po::value(&seed)->default_value(1), "the same seed gives the same numbers")
        ("output,o", po::value(&output), "write to FILE instead of standard output");
    if (!parse(io, "scenario", a, desc)) return 0;
    if (split_tokens(tokens).empty()) throw usage_error("give the sentence: qkv scenario --tokens \"我 爱 吃 苹果\"");
    spec.tokens = split_tokens(tokens);
    spec.seed = seed;
    std::string text;
    try {
        text = scenario_toml(generate_scenario(spec), fmt::format("qkv scenario {}", spec_arguments(spec)));
    } catch (const input_error& e) {
        throw usage_error(e.message());
    }
    if (output.empty() || output == "-") io.print(text);
    else write_file_atomically(output, text, "-o writes a scenario to a regular file, or to standard output with -o -");
    return 0;
}

int cmd_formulas(const args& a, const console& io) {
    po::options_description desc("Options");
    add_help_option(desc);
    if (!parse(io, "formulas", a, desc)) return 0;
    std::string out =
        "The formula language (lessons/README.md teaches it)\n\n"
        "  NAME = expr            one statement per line; # starts a comment\n"
        "  A @ B                  matrix product\n"
        "  A^T                    transpose\n"
        "  + - * /                elementwise; a scalar, a [1, d] row or an [n, 1] column\n"
        "                         broadcasts\n"
        "  A[i]  A[i, j]          row i, entry (i, j), counted from 1\n"
        "  -x  (x)  3.5           negation, grouping, numbers\n"
        "  a stack [h, n, d] is handled head by head\n\n"
        "Built-in functions\n\n";
    std::size_t w = 0;
    for (const builtin& b : builtins()) w = std::max(w, b.signature.size());
    // each help wrapped to the terminal, its lines under the first; on a narrow one under the name
    const std::size_t width = terminal::width(io.out_fd), indent = 2 + w + 2 + 20 <= width ? 2 + w + 2 : 6;
    for (const builtin& b : builtins()) {
        const std::vector<std::string> lines = wrap_paragraph(b.help, width - indent);
        out += indent == 6 ? fmt::format("  {}\n", b.signature) : fmt::format("  {:<{}}  ", b.signature, w);
        for (std::size_t i = 0; i < lines.size(); ++i) out += (i || indent == 6 ? std::string(indent, ' ') : "") + lines[i] + "\n";
    }
    io.print(out);
    return 0;
}

}  // namespace qkv::cli
