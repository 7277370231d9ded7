// `qkv validate`'s findings and `qkv formulas`' catalogue as text.
#include "qkv/report_author.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "qkv/builtins.hpp"
#include "qkv/control_text.hpp"
#include "qkv/wrap.hpp"

namespace qkv {

namespace {

// "3 problems in 2 of 5 files": one message for each way English says the two counts, since
// other languages order and count them otherwise.
std::string problems_line(std::size_t problems, std::size_t bad_files, std::size_t files, lang l) {
    const bool one = problems == 1, one_file = files == 1;
    const std::string_view message = one && one_file ? translatable("{} problem in {} of {} file")
                                     : one           ? translatable("{} problem in {} of {} files")
                                     : one_file      ? translatable("{} problems in {} of {} file")
                                                     : translatable("{} problems in {} of {} files");
    return fmt::format(fmt::runtime(tr(l, message)), problems, bad_files, files);
}

}  // namespace

std::string validation_text(const std::vector<std::pair<std::string, validation>>& checked, lang l) {
    std::string out;
    std::size_t problems = 0, bad_files = 0;
    for (const auto& [file, v] : checked) {
        // a file's name is the user's and is echoed: ESC or BEL in it is shown escaped, never sent
        if (v.problems.empty()) out += fmt::format("{}: ok ({})\n", escape_controls(file), escape_controls(v.summary));
        for (const problem& p : v.problems) out += escape_controls(p.in(l)) + "\n";
        for (const problem& w : v.warnings) out += escape_controls(w.str()) + "\n";
        problems += v.problems.size();
        bad_files += !v.problems.empty();
    }
    if (problems) out += problems_line(problems, bad_files, checked.size(), l) + "\n";
    return out;
}

std::string formulas_text(std::size_t width) {
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
    const std::size_t indent = 2 + w + 2 + 20 <= width ? 2 + w + 2 : 6;
    for (const builtin& b : builtins()) {
        const std::vector<std::string> lines = wrap_paragraph(b.help, width - indent);
        out += indent == 6 ? fmt::format("  {}\n", b.signature) : fmt::format("  {:<{}}  ", b.signature, w);
        for (std::size_t i = 0; i < lines.size(); ++i) out += (i || indent == 6 ? std::string(indent, ' ') : "") + lines[i] + "\n";
    }
    return out;
}

}  // namespace qkv
