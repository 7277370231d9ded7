// The commands for authors and tinkerers: `qkv validate` (every problem of lesson, scenario and
// exercise files, with file:line), `qkv scenario` (a scenario for your own sentence) and
// `qkv formulas` (the formula language and its built-ins, from the one table).
#include <fmt/format.h>

#include "qkv/cli.hpp"
#include "qkv/report_author.hpp"
#include "qkv/scenario_gen.hpp"
#include "qkv/terminal.hpp"
#include "qkv/validate.hpp"
#include "file_output.hpp"

namespace qkv::cli {
namespace {

namespace po = boost::program_options;

}  // namespace

int cmd_validate(const args& a, const console& io) {
    std::vector<std::string> files;
    std::string data;
    common_choice common;
    const lang l = interface_language(a);
    po::options_description desc = option_group(l, tr(l, "Options"));
    add_common_options(desc, common, l);
    desc.add_options()
        ("file", po::value(&files), tr(l, "lesson, scenario or exercise files (.toml)").c_str())
        ("data", po::value(&data), tr(l, "run lessons on this scenario instead of their own").c_str());
    if (!parse(io, "validate", a, desc, "file")) return 0;
    check_common_options(common, io);
    if (files.empty()) throw usage_error(said("which files? e.g. qkv validate lessons/*.toml data/*.toml"));
    std::vector<std::pair<std::string, validation>> checked;
    bool problems = false;
    for (const std::string& f : files) {
        checked.emplace_back(f, validate_file(f, data));
        problems = problems || !checked.back().second.problems.empty();
    }
    io.print(validation_text(checked, l));
    return problems ? 1 : 0;
}

int cmd_scenario(const args& a, const console& io) {
    std::string tokens, output;
    scenario_spec spec;
    unsigned long long seed = 1;
    common_choice common;
    const lang l = interface_language(a);
    po::options_description desc = option_group(l, tr(l, "Options"));
    add_common_options(desc, common, l);
    desc.add_options()
        ("tokens", po::value(&tokens), tr(l, "the sentence, tokens separated by spaces: \"我 爱 吃 苹果\"").c_str())
        ("d-model", po::value(&spec.d_model)->default_value(4), tr(l, "embedding width").c_str())
        ("heads", po::value(&spec.heads)->default_value(2), tr(l, "heads; must divide --d-model").c_str())
        ("seed", po::value(&seed)->default_value(1), tr(l, "the same seed gives the same numbers").c_str())
        ("output,o", po::value(&output), tr(l, "write to FILE instead of standard output").c_str());
    if (!parse(io, "scenario", a, desc)) return 0;
    check_common_options(common, io);
    if (split_tokens(tokens).empty()) throw usage_error(said("give the sentence: qkv scenario --tokens \"我 爱 吃 苹果\""));
    spec.tokens = split_tokens(tokens);
    spec.seed = seed;
    std::string text;
    try {
        text = scenario_toml(generate_scenario(spec), fmt::format("qkv scenario {}", spec_arguments(spec)));
    } catch (const input_error& e) {
        throw usage_error(e.said_message());
    }
    if (output.empty() || output == "-") io.print(text);
    else write_file_atomically(output, text, said("-o writes a scenario to a regular file, or to standard output with -o -"));
    return 0;
}

int cmd_formulas(const args& a, const console& io) {
    common_choice common;
    const lang l = interface_language(a);
    po::options_description desc = option_group(l, tr(l, "Options"));
    add_common_options(desc, common, l);
    if (!parse(io, "formulas", a, desc)) return 0;
    check_common_options(common, io);
    io.print(formulas_text(terminal::width(io.out_fd)));
    return 0;
}

}  // namespace qkv::cli
