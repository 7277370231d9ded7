// The progress line and the live screen's content (report_train_progress.hpp).
#include "qkv/report_train_progress.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "qkv/display_width.hpp"
#include "qkv/log_curve.hpp"
#include "qkv/report_train_heads.hpp"
#include "qkv/styled_text.hpp"
#include "qkv/tasks.hpp"

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

namespace {

// The heads of page `page` (see live_body), by their place in `heads`; `pages` the number of pages.
std::vector<std::size_t> heads_of_page(const train_config& c, const std::vector<head_view>& heads, std::size_t page,
                                       std::size_t& pages) {
    const bool by_source = rule_of(c.what).by_source;
    auto best = [&](auto score, bool later_layer, std::size_t other) {
        std::size_t at = heads.size();
        for (std::size_t k = 0; k < heads.size(); ++k) {
            if (k == other || (later_layer && c.size.layers > 1 && heads[k].layer == 1)) continue;
            if (at == heads.size() || score(heads[k]) > score(heads[at])) at = k;
        }
        return at;
    };
    std::vector<std::size_t> lead;
    const std::size_t previous = best([](const head_view& h) { return h.previous_token; }, false, heads.size());
    if (previous < heads.size()) lead.push_back(previous);
    const std::size_t second = by_source ? best([](const head_view& h) { return h.source; }, false, previous)
                                         : best([](const head_view& h) { return h.induction; }, true, previous);
    if (second < heads.size()) lead.push_back(second);
    std::vector<std::size_t> others;
    for (std::size_t k = 0; k < heads.size(); ++k)
        if (std::find(lead.begin(), lead.end(), k) == lead.end()) others.push_back(k);
    pages = 1 + (others.size() + 1) / 2;
    page %= pages;
    if (page == 0) return lead;
    std::vector<std::size_t> out{others[2 * (page - 1)]};
    if (2 * page - 1 < others.size()) out.push_back(others[2 * page - 1]);
    return out;
}

}  // namespace

std::vector<std::string> live_body(const train_config& c, const run_state& s, const batch& held, const render_options& o,
                                   std::size_t rows, std::size_t page, std::size_t* pages) {
    std::vector<double> all, repeated;
    for (const step_record& r : *s.steps) all.push_back(r.loss), repeated.push_back(r.loss_repeated);
    const lang l = o.language;
    std::vector<std::string> lines = log_curve_lines(
        {{tr(l, "whole sequence"), "·", all}, {tr(l, "repeated copy"), "*", repeated}},
        curve_guide{fmt::format("ln {}", c.size.vocab), std::log(double(c.size.vocab))}, o, 8);
    std::size_t count = 1;
    if (s.latest && rows == 0)
        for (auto& line : head_panels(c, s.latest->heads, held, o)) lines.push_back(std::move(line));
    else if (s.latest) {
        const std::vector<std::size_t> shown = heads_of_page(c, s.latest->heads, page, count);
        std::vector<head_view> heads;
        for (std::size_t k : shown) heads.push_back(s.latest->heads[k]);
        // the page's line, then its heads in the rows left (laid out on 6 at the least)
        std::string which = count > 1 ? fmt::format(fmt::runtime(tr(l, "heads, page {} of {} (n next, b back): ")), page % count + 1, count) : "";
        for (std::size_t k = 0; k < heads.size(); ++k) which += (k ? " · " : "") + head_title(c, heads[k]);  // the panels' titles are cut
        lines.push_back(clip(which, o.width));
        const std::size_t left = rows > lines.size() + 6 ? rows - lines.size() : 6;
        for (auto& line : head_panels(c, heads, held, o, left)) lines.push_back(std::move(line));
    }
    if (pages) *pages = count;
    return lines;
}

}  // namespace qkv
