// The training group of the formula language: train_transformer and the built-ins that read its
// run back (attention at a checkpoint, the scores, the drop, the named heads, an ablation). Every
// one takes (steps, seed) first and reads the same kept run (lesson_runs.hpp).
#include "qkv/train_builtins.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "lesson_runs.hpp"
#include "qkv/builtin_values.hpp"
#include "qkv/composition.hpp"
#include "qkv/builtins.hpp"
#include "qkv/head_scores.hpp"

namespace qkv::train {

namespace {

using namespace builtin_detail;

// Column names that are words, shown in the learner's language (labels::words).
labels interface_words(std::initializer_list<std::string_view> names) {
    labels out;
    for (std::string_view n : names) out.names.emplace_back(n);
    out.words = true;
    return out;
}

labels token_labels(const lesson_run& r, const char* axis) {
    labels out{{}, axis};
    for (int t : r.run.held.tokens) out.names.push_back(token_label(t, r.config.size.vocab));
    return out;
}

// A layer's heads on the held-out sequence as a stack of attention weights [H, T, T].
value layer_stack(const lesson_run& r, const std::vector<head_view>& heads, std::size_t layer) {
    std::vector<matrix> mats;
    for (const head_view& v : heads)
        if (v.layer == layer) mats.push_back(v.A);
    value out = value::stack(std::move(mats), token_labels(r, "queries"), token_labels(r, "keys"));
    out.weights = true;
    return out;
}

// [L·H, 2]: each head's previous-token and induction score, rows "1.1", "1.2", "2.1", … (layer.head).
value score_table(const std::vector<head_view>& heads) {
    matrix M(heads.size(), 2);
    labels rows{{}, "heads"};
    for (std::size_t i = 0; i < heads.size(); ++i) {
        M(i, 0) = heads[i].previous_token, M(i, 1) = heads[i].induction;
        rows.names.push_back(fmt::format("{}.{}", heads[i].layer, heads[i].head));
    }
    return labelled(std::move(M), rows, interface_words({translatable("previous"), translatable("induction")}));
}

const checkpoint& at_step(const lesson_run& r, const value& v, const char* fn, const eval_context& ctx) {
    const std::size_t step = whole(v, 0, fn, "step", ctx);
    for (const checkpoint& c : r.run.checkpoints)
        if (c.step == step) return c;
    std::string steps;
    for (const checkpoint& c : r.run.checkpoints) steps += fmt::format("{}{}", steps.empty() ? "" : ", ", c.step);
    formula_error(ctx, fmt::format("{}: step {} is not a checkpoint of this run ({})", fn, step, steps));
}

std::size_t in_range(const value& v, std::size_t lo, std::size_t hi, const char* fn, const char* param, const eval_context& ctx) {
    const std::size_t x = whole(v, lo, fn, param, ctx);
    if (x > hi) formula_error(ctx, fmt::format("{}: {} must be {} to {}, got {}", fn, param, lo, hi, x));
    return x;
}

// The heads switched off: (layer, head) from 1, or none for layer 0.
head_mask mask_of(const lesson_run& r, const args_t& a, const char* fn, const eval_context& ctx) {
    const model_size& s = r.config.size;
    head_mask m(s.layers * s.heads, false);
    const std::size_t layer = in_range(a[2], 0, s.layers, fn, "layer", ctx);
    if (layer == 0) return m;
    m[(layer - 1) * s.heads + in_range(a[3], 1, s.heads, fn, "head", ctx) - 1] = true;
    return m;
}

value train_transformer_fn(const args_t& a, eval_context& ctx) {
    const lesson_run& r = run_of(a, "train_transformer", ctx);
    // each step's batch is a different sample: the mean over the window ending there shows the trend
    const std::vector<double> smooth = smoothed_repeated(r.run.steps);
    matrix loss(smooth.size(), 1);
    for (std::size_t i = 0; i < loss.rows; ++i) loss(i, 0) = static_cast<float>(smooth[i]);
    for (const checkpoint& c : r.run.checkpoints) {
        std::vector<std::pair<std::string, value>> shown;
        if (c.step > 0) shown.emplace_back("loss", value::scalar(loss(c.step - 1, 0)));
        for (std::size_t l = 1; l <= r.config.size.layers; ++l)
            shown.emplace_back(fmt::format("A_{}", l), layer_stack(r, c.heads, l));
        shown.emplace_back("scores", score_table(c.heads));
        record(ctx, step_label(c.step), std::move(shown));
    }
    return labelled(std::move(loss), {{}, ""}, {{}, ""});
}

value attention_fn(const args_t& a, eval_context& ctx) {
    const char* fn = "transformer_attention";
    const lesson_run& r = run_of(a, fn, ctx);
    const checkpoint& c = at_step(r, a[2], fn, ctx);
    return layer_stack(r, c.heads, in_range(a[3], 1, r.config.size.layers, fn, "layer", ctx));
}

value scores_fn(const args_t& a, eval_context& ctx) {
    const lesson_run& r = run_of(a, "head_scores", ctx);
    return score_table(at_step(r, a[2], "head_scores", ctx).heads);
}

value drop_fn(const args_t& a, eval_context& ctx) {
    const lesson_run& r = run_of(a, "drop_step", ctx);
    return value::scalar(r.run.drop ? static_cast<float>(*r.run.drop) : 0.0f);
}

value plateau_fn(const args_t& a, eval_context& ctx) {
    const lesson_run& r = run_of(a, "plateau_step", ctx);
    const std::vector<std::size_t> shown = telling_checkpoints(r.run, r.config.size.vocab);
    return value::scalar(shown.size() == 3 ? float(r.run.checkpoints[shown[1]].step) : 0.0f);
}

value named_fn(const args_t& a, eval_context& ctx) {
    const lesson_run& r = run_of(a, "named_heads", ctx);
    const named_heads& n = r.run.names;
    matrix M(2, 2);
    M(0, 0) = float(n.previous_token[0]), M(0, 1) = float(n.previous_token[1]);
    M(1, 0) = float(n.induction[0]), M(1, 1) = float(n.induction[1]);
    return labelled(std::move(M), interface_words({translatable("previous"), translatable("induction")}), interface_words({translatable("layer"), translatable("head")}));
}

// The run's last weights on the held-out sequence with the heads of mask_of switched off.
probe_result ablated(const lesson_run& r, const args_t& a, const char* fn, const eval_context& ctx) {
    const head_mask m = mask_of(r, a, fn, ctx);
    parameters w = r.weights;
    return probe(r.config, w, r.run.held, &m);
}

value ablated_scores_fn(const args_t& a, eval_context& ctx) {
    const lesson_run& r = run_of(a, "ablated_scores", ctx);
    return score_table(ablated(r, a, "ablated_scores", ctx).heads);
}

value ablated_attention_fn(const args_t& a, eval_context& ctx) {
    const char* fn = "ablated_attention";
    const lesson_run& r = run_of(a, fn, ctx);
    return layer_stack(r, ablated(r, a, fn, ctx).heads, in_range(a[4], 1, r.config.size.layers, fn, "of_layer", ctx));
}

value ablated_loss_fn(const args_t& a, eval_context& ctx) {
    const lesson_run& r = run_of(a, "ablated_loss", ctx);
    const head_mask m = mask_of(r, a, "ablated_loss", ctx);
    parameters w = r.weights;
    const batch_loss l = measure(r.config, w, r.evaluation, &m);
    return labelled(matrix::of({{l.loss, l.loss_repeated}}), {{}, ""}, interface_words({translatable("all"), translatable("repeated")}));
}

// The run with `layers` layers (third argument) in place of lesson 18's two: the contrast of lesson 19.
const lesson_run& layered_run(const args_t& a, const char* fn, const eval_context& ctx) {
    return run_of(a, fn, ctx, in_range(a[2], 1, 4, fn, "layers", ctx));
}

value layers_loss_fn(const args_t& a, eval_context& ctx) {
    const lesson_run& r = layered_run(a, "loss_with_layers", ctx);
    parameters w = r.weights;
    const batch_loss l = measure(r.config, w, r.evaluation, nullptr);
    return labelled(matrix::of({{l.loss, l.loss_repeated}}), {{}, ""}, interface_words({translatable("all"), translatable("repeated")}));
}

value layers_scores_fn(const args_t& a, eval_context& ctx) {
    const lesson_run& r = layered_run(a, "scores_with_layers", ctx);
    return score_table(r.run.checkpoints.back().heads);
}

value repeat_fn(const args_t&, eval_context&) {
    const batch held = held_out(lesson_config(1, 0));
    const repeat_span& s = held.spans[0];
    return labelled(matrix::of({{float(s.first + 1), float(s.second + 1), float(s.length)}}), {{}, ""},
                    interface_words({translatable("first"), translatable("second"), translatable("length")}));
}

value tokens_fn(const args_t&, eval_context&) {
    const train_config c = lesson_config(1, 0);
    const batch held = held_out(c);
    matrix M(1, c.size.seq);
    labels cols{{}, "tokens"};
    for (std::size_t i = 0; i < c.size.seq; ++i) {
        M(0, i) = float(held.tokens[i]);
        cols.names.push_back(token_label(held.tokens[i], c.size.vocab));
    }
    return labelled(std::move(M), {{}, ""}, cols);
}

value config_fn(const args_t&, eval_context&) {
    const train_config c = lesson_config(1, 0);
    const model_size& s = c.size;
    return labelled(matrix::of({{float(s.vocab), float(s.seq), float(s.d_model), float(s.heads), float(s.layers), float(c.batch),
                                 float(c.segment_min), float(c.segment_max)}}),
                    {{}, ""}, {{"vocab", "seq", "d_model", "heads", "layers", "batch", "seg_min", "seg_max"}, ""});
}

// The work they state: training the run they read (lesson 18's two layers, or `layers`), as if it
// were not kept yet; reading a kept run back is nothing beside it.
double layers_work(const args_t& a) { return lesson_run_work(a, size_of(a[2])); }
double no_work(const args_t&) { return 0.0; }

constexpr builtin_entry training_builtins[] = {
    {"train_transformer(steps, seed)",
     "trains lesson 18's attention-only model (induction task, vocab 20, seq 20, d_model 32, 2 heads, 2 layers, batch "
     "32, Adam) for steps from seed: the repeated copy's loss, averaged over the last steps / 50 (1 to 50), at each "
     "step -> [steps, 1]; records every checkpoint (steps / 10)",
     train_transformer_fn, lesson_work},
    {"transformer_attention(steps, seed, step, layer)",
     "that run's heads of one layer on the held-out sequence at a checkpoint (step 0: before training) "
     "-> [heads, seq, seq]",
     attention_fn, lesson_work},
    {"head_scores(steps, seed, step)",
     "each head's previous-token and induction score at a checkpoint, rows layer.head -> [layers * heads, 2]",
     scores_fn, lesson_work},
    {"drop_step(steps, seed)",
     "the first step where the repeated copy's loss, averaged as train_transformer shows it, is below ln(vocab) / 2; "
     "0 if none -> scalar",
     drop_fn, lesson_work},
    {"plateau_step(steps, seed)",
     "the last checkpoint before the drop at which train_transformer's loss was still at least 0.8 ln(vocab) (the "
     "middle one when there was no drop); 0 when there is none past step 0 -> scalar",
     plateau_fn, lesson_work},
    {"named_heads(steps, seed)",
     "(layer, head) of the best previous-token head of layer 1 and the best induction head of layer 2 at the end "
     "-> [2, 2]",
     named_fn, lesson_work},
    {"ablated_scores(steps, seed, layer, head)",
     "head_scores at the end with head (layer, head) switched off (layer 0: none) -> [layers * heads, 2]",
     ablated_scores_fn, lesson_work},
    {"ablated_attention(steps, seed, layer, head, of_layer)",
     "transformer_attention at the end, of layer of_layer, with head (layer, head) switched off -> [heads, seq, seq]",
     ablated_attention_fn, lesson_work},
    {"ablated_loss(steps, seed, layer, head)",
     "the loss on 128 sequences never trained on, on all predictions and on the repeated copy's, with head (layer, "
     "head) switched off (layer 0: none) -> [1, 2]",
     ablated_loss_fn, lesson_work},
    {"loss_with_layers(steps, seed, layers)",
     "ablated_loss(steps, seed, 0, 0) of the same model trained the same way with layers layers (1 to 4) instead of 2 "
     "-> [1, 2]",
     layers_loss_fn, layers_work},
    {"scores_with_layers(steps, seed, layers)",
     "head_scores at the end of the same model trained the same way with layers layers (1 to 4) instead of 2 "
     "-> [layers * heads, 2]",
     layers_scores_fn, layers_work},
    {"held_out_tokens()", "lesson 18's held-out sequence: token numbers, labelled a, b, … -> [1, seq]", tokens_fn, no_work},
    {"held_out_repeat()",
     "where the held-out sequence's two copies start (positions from 1) and their length -> [1, 3]", repeat_fn, no_work},
    {"transformer_config()",
     "lesson 18's model: vocab, seq, d_model, heads, layers, batch, and the shortest and longest repeated segment "
     "-> [1, 8]",
     config_fn, no_work},
};

}  // namespace

// Lesson 18's built-ins, then lesson 19's composition of its heads (composition.hpp).
std::vector<builtin> training_group() {
    std::vector<builtin> all = builtins_of(training_builtins);
    for (builtin& b : composition_group()) all.push_back(std::move(b));
    return all;
}

void watch_lesson_runs(std::function<void(const run_state&)> watch) { lesson_run_watcher() = std::move(watch); }

void add_training_builtins(std::function<void(const run_state&)> watch) {
    watch_lesson_runs(std::move(watch));
    add_builtin_group("training", training_group);
}

}  // namespace qkv::train
