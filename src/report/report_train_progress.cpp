// The progress line and the live screen's content (report_train_progress.hpp).
#include "qkv/report_train_progress.hpp"

#include <cmath>

#include <fmt/format.h>

#include "qkv/display_width.hpp"
#include "qkv/log_curve.hpp"
#include "qkv/report_train_heads.hpp"

namespace qkv {

using namespace qkv::train;

std::string progress_text(const run_state& s, lang l, std::size_t width) {
    const std::size_t done = s.steps ? s.steps->size() : 0, total = s.last_step - (s.step - done);
    auto text = [&](bool repeated, bool induction) {
        std::string out = fmt::format("{} {}/{}", tr(l, "step"), s.step, s.last_step);
        if (done > 0) {
            const step_record& r = s.steps->back();
            out += fmt::format(fmt::runtime(tr(l, "  loss {:.2f}")), r.loss);
            if (repeated)
                out += fmt::format(fmt::runtime(tr(l, " (repeated {:.2f})")), r.loss_repeated);
        }
        if (induction)
            out += fmt::format(fmt::runtime(tr(l, "  best induction {:.2f}")),
                               s.best_induction);
        out += fmt::format(fmt::runtime(tr(l, "  {:.1f} s")), s.seconds);
        if (done > 0 && total > done)
            out += fmt::format(fmt::runtime(tr(l, ", {:.1f} s left")),
                               s.seconds / double(done) * double(total - done));
        return out;
    };
    std::string out = text(true, true);
    if (display_width(out) > width) out = text(false, true);
    if (display_width(out) > width) out = text(false, false);
    return out;
}

std::string live_title(const run_state& s, lang l, std::size_t width) {
    const std::string name = "qkv train  ";
    return name + progress_text(s, l, width > display_width(name) ? width - display_width(name) : 0);
}

std::vector<std::string> live_body(const train_config& c, const run_state& s, const batch& held,
                                   const render_options& o) {
    std::vector<double> all, repeated;
    for (const step_record& r : *s.steps) all.push_back(r.loss), repeated.push_back(r.loss_repeated);
    const lang l = o.language;
    std::vector<std::string> lines = log_curve_lines(
        {{tr(l, "whole sequence"), "·", all}, {tr(l, "repeated copy"), "*", repeated}},
        curve_guide{fmt::format("ln {}", c.size.vocab), std::log(double(c.size.vocab))}, o, 8);
    if (s.latest)
        for (auto& line : head_panels(c, s.latest->heads, held, o)) lines.push_back(std::move(line));
    return lines;
}

}  // namespace qkv
