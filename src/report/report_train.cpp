// The report of a training run as text and as JSON, and a trained layer as a scenario
// (report_train.hpp).
#include "qkv/report_train.hpp"

#include <cmath>
#include <optional>
#include <stdexcept>

#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qkv/command_text.hpp"
#include "qkv/display_width.hpp"
#include "qkv/log_curve.hpp"
#include "qkv/model_file.hpp"
#include "qkv/report_train_heads.hpp"
#include "qkv/scenario_gen.hpp"
#include "qkv/tasks.hpp"
#include "qkv/wrap.hpp"

namespace qkv {

using namespace qkv::train;
// float as the number type, as the JSON trace has it: 0.1f prints as 0.1, not 0.10000000149011612
using json = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

namespace {

std::string prose(std::string_view key, const render_options& r) {
    std::string out;
    for (const auto& line : reflow(command_text("train", key).in(r.language), r.width > 1 ? r.width - 1 : r.width)) {
        out += line;
        out += '\n';
    }
    return out;
}

std::string lines(const std::vector<std::string>& ls) {
    std::string out;
    for (const auto& l : ls) {
        out += l;
        out += '\n';
    }
    return out;
}

// A sentence (or a line of facts) the report words itself, wrapped to the screen as the prose
// around it is: at 80 columns the last lines ran on to 105 and the terminal cut "fe/ll below".
// Lines after the first start with `indent`.
std::string wrapped(std::string_view text, const render_options& r, std::string_view indent = {}) {
    return lines(wrap_paragraph(text, r.width > 1 ? r.width - 1 : r.width, indent));
}

// The same with every line two spaces in: a line under a heading.
std::string wrapped_under(std::string_view text, const render_options& r) {
    const std::size_t room = r.width > 3 ? r.width - 3 : 1;
    std::string out;
    for (const auto& l : wrap_paragraph(text, room)) out += "  " + l + "\n";
    return out;
}

// What the report says of each task of the tasks' table (tasks.hpp), which a new task gives here
// (test_report_train asks every task for them): what its predictions that can be right are called,
// where the held-out sequence's two copies stand (its length and both starts, from 1), and the key
// of the prose that explains its drop (lessons/prose/train.toml).
struct task_words {
    task id;
    std::string_view predictable_part, where;  // messages of the catalogues (tr)
    std::string_view drop_prose;
};
constexpr task_words words[] = {
    {task::induction, translatable("the repeated copy"), translatable("its segment of {} starts at position {} and again at {}"),
     "drop"},
    {task::reverse, translatable("the second half"),
     translatable("its first {} tokens start at position {} and come again backwards from {}"), "drop_source"},
    {task::copy, translatable("the second half"), translatable("its first {} tokens start at position {} and come again from {}"),
     "drop_source"},
};

const task_words& words_of(task t) {
    for (const task_words& w : words)
        if (w.id == t) return w;
    throw std::logic_error("a task without words in the report");
}

std::string predictable_part(task t, lang l) { return std::string(tr(l, words_of(t).predictable_part)); }

// "qkv train  induction · vocab 24 · …": the facts of the run, each kept whole, as many on a line
// as the screen holds; the next line goes on two spaces in.
std::string header(const train_outcome& o, const render_options& r) {
    const train_config& c = o.config;
    const model_size& s = c.size;
    const lang l = r.language;
    const std::vector<std::string> facts{
        fmt::format("qkv train  {}", task_name(c.what)), fmt::format("vocab {}", s.vocab), fmt::format("seq {}", s.seq),
        fmt::format("d_model {}", s.d_model),
        fmt::format("{} × {} {}", s.layers, s.heads, tr(l, "heads (layers × heads)")),
        fmt::format("batch {}", c.batch), fmt::format("{} {}", o.run.steps.size(), tr(l, "steps")),
        fmt::format("seed {}", c.seed), fmt::format("{} {}", c.threads, c.threads == 1 ? tr(l, "thread") : tr(l, "threads"))};
    const std::size_t room = r.width > 1 ? r.width - 1 : r.width;
    std::string out, line;
    for (const std::string& fact : facts) {
        if (line.empty()) line = out.empty() ? fact : "  " + fact;
        else if (display_width(line) + display_width(" · " + fact) + 2 <= room) line += " · " + fact;  // room for a " ·" after it
        else out += line + " ·\n", line = "  " + fact;
    }
    return out + line + "\n";
}

std::string loss_chart(const train_outcome& o, const render_options& r) {
    std::vector<double> all, repeated;
    for (const step_record& s : o.run.steps) all.push_back(s.loss), repeated.push_back(s.loss_repeated);
    const double ln_v = std::log(double(o.config.size.vocab));
    const lang l = r.language;
    std::string out = tr(l, "Loss, log scale (each column the mean of the steps it stands for)\n");
    out += lines(log_curve_lines({{tr(l, "whole sequence"), "·", all}, {predictable_part(o.config.what, l), "*", repeated}},
                                 curve_guide{fmt::format("ln {}", o.config.size.vocab), ln_v}, r));
    return out;
}

std::string held_out_text(const train_outcome& o, const render_options& r) {
    const lang l = r.language;
    const repeat_span& s = o.run.held.spans[0];
    std::string seq;
    for (const auto& t : held_out_labels(o.config, o.run.held)) {
        if (!seq.empty()) seq += ' ';
        seq += t;
    }
    const std::string where(tr(l, words_of(o.config.what).where));
    return wrapped(tr(l, "The held-out sequence (every head below is shown on it):"), r) +
           wrapped_under(seq, r) + wrapped_under(fmt::format(fmt::runtime(where), s.length, s.first + 1, s.second + 1), r);
}

std::string checkpoints_text(const train_outcome& o, const render_options& r) {
    const lang l = r.language;
    const std::vector<std::size_t> shown = telling_checkpoints(o.run, o.config.size.vocab);
    std::string out;
    for (std::size_t k = 0; k < shown.size(); ++k) {
        const checkpoint& c = o.run.checkpoints[shown[k]];
        const std::string what = k == 0 ? tr(l, "before training")
                                 : k + 1 == shown.size() ? tr(l, "the end") : tr(l, "on the plateau");
        out += fmt::format("\n{} {}, {}\n", tr(l, "Step"), c.step, what);
        out += lines(head_panels(o.config, c.heads, o.run.held, r));
    }
    return out;
}

// The score a head is named for, at the end of the run.
float final_score(const train_outcome& o, const std::size_t (&head)[2], float head_view::*score) {
    for (const head_view& v : o.run.checkpoints.back().heads)
        if (v.layer == head[0] && v.head == head[1]) return v.*score;
    return 0;
}

// Which heads are named and why, and for the induction task the order in which the two scores of
// the circuit rose, read from the checkpoints: the run's own record, not a story.
std::string naming_text(const train_outcome& o, const render_options& r) {
    const lang l = r.language;
    const named_heads& n = o.run.names;
    const std::vector<checkpoint>& cs = o.run.checkpoints;
    const float t = naming_threshold;
    std::string out;
    auto unnamed = [&](const std::size_t (&head)[2], float head_view::*score, std::string_view what) {
        out += wrapped(fmt::format(fmt::runtime(tr(l, "No head reaches {0:.1f} on the {1} score (the best, head {2}.{3}, has {4:.2f}): none is named for it.")),
                                   t, tr(l, what), head[0], head[1], final_score(o, head, score)),
                       r);
    };
    if (rule_of(o.config.what).by_source) {
        if (final_score(o, n.source, &head_view::source) < t) unnamed(n.source, &head_view::source, translatable("source"));
        return out + prose(o.config.what == task::copy ? "copy_scores" : "reverse_scores", r);
    }
    if (o.config.size.layers == 1) return out + prose("one_layer", r);
    const bool previous = final_score(o, n.previous_token, &head_view::previous_token) >= t;
    const bool induction = final_score(o, n.induction, &head_view::induction) >= t;
    if (!previous) unnamed(n.previous_token, &head_view::previous_token, translatable("previous-token"));
    if (!induction) unnamed(n.induction, &head_view::induction, translatable("induction"));
    if (!previous || !induction) return out;
    const std::optional<std::size_t> p = rose_at(cs, n.previous_token, &head_view::previous_token);
    const std::optional<std::size_t> i = rose_at(cs, n.induction, &head_view::induction);
    if (!p || !i) return out;
    const std::string order = *i < *p   ? tr(l, "the induction score rose first")
                              : *p < *i ? tr(l, "the previous-token score rose first")
                                        : tr(l, "both rose between the same two checkpoints");
    const std::size_t every = cs.size() > 1 ? cs[1].step - cs[0].step : 0;
    return out + wrapped(fmt::format(fmt::runtime(tr(l, "Head {0}.{1}'s previous-token score first reached {2:.1f} at step {3}, head {4}.{5}'s induction score at step {6} (checkpoints every {7} steps): {8}.")),
                                     n.previous_token[0], n.previous_token[1], t, *p, n.induction[0], n.induction[1], *i, every, order),
                         r);
}

std::string scores_text(const train_outcome& o, const render_options& r) {
    const lang l = r.language;
    const bool source = rule_of(o.config.what).by_source;
    const named_heads& n = o.run.names;
    std::string out = fmt::format("\n{:<10}{:>16}{:>12}{}\n", "", tr(l, "previous-token"), tr(l, "induction"),
                                  source ? fmt::format("{:>10}", tr(l, "source")) : "");
    // a head is named only when its score reaches the threshold, not for being the best of none
    auto is = [](const head_view& v, const std::size_t (&named)[2], float score) {
        return v.layer == named[0] && v.head == named[1] && score >= naming_threshold;
    };
    for (const head_view& v : o.run.checkpoints.back().heads) {
        std::string mark;
        if (!source && is(v, n.previous_token, v.previous_token)) mark += tr(l, "  ← the previous-token head");
        if (!source && is(v, n.induction, v.induction)) mark += tr(l, "  ← the induction head");
        if (source && is(v, n.source, v.source)) mark += tr(l, "  ← the source head");
        out += fmt::format("{:<10}{:>16.2f}{:>12.2f}{}{}\n", fmt::format("{} {}.{}", tr(l, "head"), v.layer, v.head), v.previous_token,
                           v.induction, source ? fmt::format("{:>10.2f}", v.source) : "", mark);
    }
    out += '\n';
    out += prose("scores", r);
    if (source) out += prose("source", r);
    out += naming_text(o, r);
    return out;
}

std::string outcome_text(const train_outcome& o, const render_options& r) {
    const lang l = r.language;
    const std::size_t V = o.config.size.vocab, window = smoothing_window(o.run.steps.size());
    const double ln_v = std::log(double(V));
    std::string out = "\n";
    if (o.run.drop) {
        out += wrapped(fmt::format(fmt::runtime(tr(l, "The drop: step {0}, where the loss of {4} (a mean of {1} step{5}) fell below ½ ln {2} = {3:.2f}.")),
                                   *o.run.drop, window, V, ln_v / 2, predictable_part(o.config.what, l), window == 1 ? "" : "s"),
                       r);
        // the plateau held to ln V, in the run's own number: how near "guessing" it really was
        const std::vector<std::size_t> shown = telling_checkpoints(o.run, V);
        const std::size_t first = o.run.checkpoints.front().step;
        if (shown.size() == 3 && o.run.checkpoints[shown[1]].step > first) {
            const std::size_t step = o.run.checkpoints[shown[1]].step;
            const double plateau = smoothed_repeated(o.run.steps)[step - first - 1];
            out += wrapped(fmt::format(fmt::runtime(tr(l, "On the plateau, at step {0}, it was {1:.2f}: {2:.0f}% of ln {3} = {4:.2f}, the loss of a uniform guess over the vocabulary.")),
                                       step, plateau, 100 * plateau / ln_v, V, ln_v),
                           r);
        }
        out += prose(words_of(o.config.what).drop_prose, r);
    }
    else if (o.config.size.layers > 1 || rule_of(o.config.what).by_source)
        out += prose("no_drop", r);  // one layer of induction: no step count helps (one_layer says why)
    if (o.run.steps.empty()) return out;
    const double end = smoothed_repeated(o.run.steps).back();
    out += wrapped(fmt::format(fmt::runtime(tr(l, "The loss of {5} at the end: {0:.2f}, {1:.0f}% of ln {2} = {3:.2f} (the mean of the last {4} step{6}).")),
                               end, 100 * end / ln_v, V, ln_v, window, predictable_part(o.config.what, l), window == 1 ? "" : "s"),
                   r);
    const double per_step = o.run.seconds / double(o.run.steps.size());
    out += wrapped(fmt::format(fmt::runtime(tr(l, "Trained {0} steps in {1:.2f} s: {2:.2f} ms a step, {3} thread{4}.")),
                               o.run.steps.size(), o.run.seconds, 1e3 * per_step, o.config.threads, o.config.threads == 1 ? "" : "s"),
                   r);
    return out;
}

json head_json(const head_view& v, task t) {
    json A = json::array();
    for (std::size_t i = 0; i < v.A.rows; ++i) A.push_back(std::vector<float>(v.A.row(i), v.A.row(i) + v.A.cols));
    json h = {{"layer", v.layer}, {"head", v.head}, {"A", std::move(A)}, {"previous_token_score", v.previous_token},
              {"induction_score", v.induction}};
    if (rule_of(t).by_source) h["source_score"] = v.source;
    return h;
}

}  // namespace

std::string train_text(const train_outcome& o, const render_options& r) {
    std::string out = header(o, r);
    if (o.run.stopped) out += prose("stopped", r);
    for (const std::string& part : {std::string("\n"), loss_chart(o, r), std::string("\n"), held_out_text(o, r),
                                    checkpoints_text(o, r), scores_text(o, r), outcome_text(o, r)})
        out += part;
    return out;
}

std::string train_json(const train_outcome& o, bool with_batches) {
    json config = json::parse(config_json(o.config));
    config["parameters"] = parameter_count(o.config.size);
    json steps = json::array();
    for (std::size_t i = 0; i < o.run.steps.size(); ++i) {
        const step_record& s = o.run.steps[i];
        json one = {{"step", s.step}, {"loss", s.loss}, {"loss_repeated", s.loss_repeated}, {"lr", s.lr}};
        if (with_batches && i < o.run.batches.size()) one["tokens"] = o.run.batches[i];
        steps.push_back(std::move(one));
    }
    json checkpoints = json::array();
    for (const checkpoint& c : o.run.checkpoints) {
        json heads = json::array();
        for (const head_view& v : c.heads) heads.push_back(head_json(v, o.config.what));
        checkpoints.push_back({{"step", c.step}, {"loss", c.loss}, {"loss_repeated", c.loss_repeated}, {"heads", std::move(heads)}});
    }
    const repeat_span& r = o.run.held.spans[0];
    const named_heads& n = o.run.names;
    json doc = {{"config", std::move(config)}, {"steps", std::move(steps)}, {"checkpoints", std::move(checkpoints)},
                {"tokens", o.run.held.tokens}, {"repeat", {{"first", r.first + 1}, {"second", r.second + 1}, {"length", r.length}}},
                {"previous_token_head", {n.previous_token[0], n.previous_token[1]}},
                {"induction_head", {n.induction[0], n.induction[1]}}};
    if (rule_of(o.config.what).by_source) doc["source_head"] = {n.source[0], n.source[1]};
    // the best heads above are named only at this score; when each score reached it (or null)
    doc["naming_threshold"] = naming_threshold;
    auto step_or_null = [](std::optional<std::size_t> s) { return s ? json(*s) : json(nullptr); };
    doc["previous_token_rose_at"] = step_or_null(rose_at(o.run.checkpoints, n.previous_token, &head_view::previous_token));
    doc["induction_rose_at"] = step_or_null(rose_at(o.run.checkpoints, n.induction, &head_view::induction));
    doc["drop_step"] = o.run.drop ? json(*o.run.drop) : json(nullptr);
    doc["loss_repeated_final"] = o.run.steps.empty() ? json(nullptr) : json(smoothed_repeated(o.run.steps).back());
    doc["steps_done"] = o.steps_done();
    doc["stopped"] = o.run.stopped;
    doc["seconds"] = o.run.seconds;
    return doc.dump() + "\n";
}

std::string layer_scenario(const train_outcome& o, const std::vector<layer_export>& layers, std::size_t layer) {
    const layer_export& x = layers.at(layer - 1);
    const train_config& c = o.config;
    scenario s;
    s.name = fmt::format("qkv train: layer {} of {} ({} task, seed {}, {} steps)", layer, c.size.layers, task_name(c.what), c.seed,
                         o.steps_done());
    s.tokens = held_out_labels(c, o.run.held);
    s.heads = c.size.heads;
    s.causal = true;  // trained under the mask: the lessons apply it too
    s.matrices = {{"X", x.X}, {"W_Q", x.W_Q}, {"W_K", x.W_K}, {"W_V", x.W_V}, {"W_O", x.W_O}};
    for (std::size_t l = 1; l <= layers.size(); ++l) {
        const layer_export& e = layers[l - 1];
        for (const auto& [name, m] : {std::pair{"X", &e.X}, {"W_Q", &e.W_Q}, {"W_K", &e.W_K}, {"W_V", &e.W_V}, {"W_O", &e.W_O}})
            s.matrices[fmt::format("{}_{}", name, l)] = *m;
    }
    if (!o.run.checkpoints.empty()) {
        const std::vector<head_view>& heads = o.run.checkpoints.back().heads;
        matrix scores(heads.size(), 2);  // [layers · heads, 2]: previous-token, induction
        for (std::size_t k = 0; k < heads.size(); ++k) scores(k, 0) = heads[k].previous_token, scores(k, 1) = heads[k].induction;
        s.matrices["head_scores"] = std::move(scores);
    }
    return scenario_toml(s, fmt::format("X is the residual stream entering layer {} on the held-out sequence; trained with the "
                                        "causal mask (lesson 7). Try: qkv lesson 8 --data FILE",
                                        layer));
}

std::map<std::string, std::string> head_roles(const train_outcome& o, lang l) {
    std::map<std::string, std::string> out;
    const bool source = rule_of(o.config.what).by_source;
    const named_heads& n = o.run.names;
    for (const head_view& v : o.run.checkpoints.back().heads) {
        auto named = [&](const std::size_t (&h)[2], float score) { return v.layer == h[0] && v.head == h[1] && score >= naming_threshold; };
        std::string role;
        if (!source && named(n.previous_token, v.previous_token)) role = tr(l, "the previous-token head");
        if (!source && named(n.induction, v.induction)) role += (role.empty() ? "" : ", ") + tr(l, "the induction head");
        if (source && named(n.source, v.source)) role = tr(l, "the source head");
        if (!role.empty()) out[fmt::format("{}.{}", v.layer, v.head)] = role;
    }
    return out;
}

}  // namespace qkv
