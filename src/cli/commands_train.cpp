// `qkv train`: trains a small attention-only transformer from scratch and shows what its heads
// learned; --save / --load a model, --scenario a trained layer for the lessons, --live to watch.
#include <optional>

#include <fmt/format.h>

#include "qkv/cli.hpp"
#include "qkv/head_scores.hpp"
#include "qkv/live_screen.hpp"
#include "qkv/model_file.hpp"
#include "qkv/report_train.hpp"
#include "qkv/report_train_progress.hpp"
#include "qkv/stop_request.hpp"
#include "qkv/tasks.hpp"
#include "qkv/terminal.hpp"
#include "qkv/trainer.hpp"
#include "file_output.hpp"
#include "progress_line.hpp"

namespace qkv::cli {
namespace {

namespace po = boost::program_options;
using namespace qkv::train;

struct train_args {
    train_config c;
    std::string task = "induction", segment, save, load, scenario;
    std::size_t layer = 0, checkpoint_every = 0;
    bool live = false, record_batches = false;
    output_choice out;
};

// The model's sizes, each an option of its own; one a loaded model must keep (keep_sizes).
struct size_option {
    const char* name;
    std::size_t model_size::*field;
    std::string_view help;
};
constexpr size_option size_options[] = {
    {"vocab", &model_size::vocab, translatable("tokens in the vocabulary (default 24)")},
    {"seq", &model_size::seq, translatable("positions per sequence (default 24)")},
    {"d-model", &model_size::d_model, translatable("width of the residual stream (default 32)")},
    {"heads", &model_size::heads, translatable("heads per layer; must divide --d-model (default 2)")},
    {"layers", &model_size::layers, translatable("attention layers (default 2)")}};

void model_options(po::options_description& d, train_args& t, lang l) {
    const std::string tasks_help =
        fmt::format(fmt::runtime(tr(l, "{} (default {})")), task_list(tr(l, ", "), tr(l, " or ")), tasks().front().name);
    d.add_options()("task", po::value(&t.task), tasks_help.c_str());
    for (const size_option& o : size_options) d.add_options()(o.name, po::value(&(t.c.size.*o.field)), tr(l, o.help).c_str());
    d.add_options()("segment", po::value(&t.segment), tr(l, "induction: the repeated segment's lengths, MIN-MAX (default 4-(seq-4)/2)").c_str());
}

void training_options(po::options_description& d, train_config& c, std::size_t& checkpoint_every, lang l) {
    d.add_options()
        ("steps", po::value(&c.steps), tr(l, "Adam steps (default 4000)").c_str())
        ("batch", po::value(&c.batch), tr(l, "sequences per step (default 32)").c_str())
        ("lr", po::value(&c.adam.lr), tr(l, "learning rate (default 0.002)").c_str())
        ("warmup", po::value(&c.adam.warmup), tr(l, "steps over which the rate rises linearly (default 100)").c_str())
        ("beta1", po::value(&c.adam.beta1), tr(l, "Adam's beta1 (default 0.9)").c_str())
        ("beta2", po::value(&c.adam.beta2), tr(l, "Adam's beta2 (default 0.999)").c_str())
        ("eps", po::value(&c.adam.eps), tr(l, "Adam's epsilon (default 1e-8)").c_str())
        ("clip", po::value(&c.adam.clip), tr(l, "largest global gradient norm; 0: no clipping (default 1)").c_str())
        ("init-embedding", po::value(&c.init_embedding), tr(l, "E ~ N(0, s^2) (default 1)").c_str())
        ("init-position", po::value(&c.init_position), tr(l, "P ~ N(0, s^2) (default 0.5)").c_str())
        ("init-gain", po::value(&c.init_gain), tr(l, "W_Q, W_K, W_V, W_O and U ~ N(0, g^2 / d_model) (default 0.5)").c_str())
        ("seed", po::value(&c.seed), tr(l, "seed of the weights and the batches (default 1)").c_str())
        ("threads", po::value(&c.threads), tr(l, "threads, each a share of the batch (default 1)").c_str())
        ("checkpoint-every", po::value(&checkpoint_every), tr(l, "steps between checkpoints of every head (default steps / 20)").c_str());
}

void file_options(po::options_description& d, train_args& t, lang l) {
    d.add_options()
        ("save", po::value(&t.save), tr(l, "write the trained model to FILE (whole, or not at all; also after Ctrl-C)").c_str())
        ("load", po::value(&t.load), tr(l, "start from a model --save wrote: its sizes, and its settings unless given").c_str())
        ("scenario", po::value(&t.scenario), tr(l, "write the model as a causal scenario FILE for qkv lesson 2-9 --data (layer --layer as X, W_Q, ...)").c_str())
        ("layer", po::value(&t.layer), tr(l, "the layer --scenario writes, from 1").c_str())
        ("live", po::bool_switch(&t.live), tr(l, "redraw the loss and every head while it trains (a terminal; q stops)").c_str())
        ("record-batches", po::bool_switch(&t.record_batches), tr(l, "--format json: each step's tokens too").c_str());
    add_format_option(d, t.out.format, text_and_json, l);
    add_lang_option(d, t.out.lang, l);
    add_color_option(d, t.out.color, l);
    add_help_option(d, l);  // -h too, as every other command takes it
}

// "4-10" -> 4, 10; "6" -> 6, 6. A length below 2 or a MIN above MAX is refused here: 0 means "the
// default" inside train_config, so 0-0 and 4-0 quietly ran the default while 1-1 was refused.
void parse_segment(const std::string& text, train_config& c) {
    const std::size_t dash = text.find('-');
    const std::string lo = text.substr(0, dash), hi = dash == std::string::npos ? lo : text.substr(dash + 1);
    const sentence form = said("--segment wants MIN-MAX, whole numbers with 2 <= MIN <= MAX (as 4-10), not '{}'", text);
    auto whole = [&](const std::string& s) {
        if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) throw usage_error(form);
        return std::stoul(s);
    };
    c.segment_min = whole(lo), c.segment_max = whole(hi);
    if (c.segment_min < 2 || c.segment_min > c.segment_max) throw usage_error(form);
}

// A loaded model keeps its sizes: one given on the command line must agree with the file's.
void keep_sizes(const po::variables_map& vm, const model_size& given, const model_size& file, const std::string& path) {
    for (const size_option& o : size_options) {
        const std::size_t typed = given.*o.field, kept = file.*o.field;
        if (vm.count(o.name) && typed != kept)
            throw usage_error(o.field == &model_size::seq && typed > kept
                                  ? said("--seq {} is too long for the positions of {} (it has {})", typed, path, kept)
                                  : said("--{} {} differs from the {} of the model in {}", o.name, typed, kept, path));
    }
}

// The file's configuration, with every setting the command line gives instead; steps are the
// command line's (a step-0 file says 0).
train_config merge_loaded(const train_config& given, const train_config& file, const po::variables_map& vm) {
    train_config c = file;
    c.steps = vm.count("steps") ? given.steps : train_config{}.steps;
    auto take = [&](const char* name, auto& to, const auto& from) {
        if (vm.count(name)) to = from;
    };
    take("task", c.what, given.what), take("batch", c.batch, given.batch), take("seed", c.seed, given.seed);
    take("threads", c.threads, given.threads), take("lr", c.adam.lr, given.adam.lr), take("warmup", c.adam.warmup, given.adam.warmup);
    take("beta1", c.adam.beta1, given.adam.beta1), take("beta2", c.adam.beta2, given.adam.beta2);
    take("eps", c.adam.eps, given.adam.eps), take("clip", c.adam.clip, given.adam.clip);
    if (vm.count("task") && !vm.count("segment")) c.segment_min = c.segment_max = 0;  // the new task's own
    return c;
}

void settle_config(train_args& t, const po::variables_map& vm, format form, const console& io, std::optional<loaded_model>& loaded) {
    if (!parse_task(t.task, t.c.what))
        throw usage_error(said("--task must be {}, not '{}'", sentence::worded([](lang l) { return task_list(tr(l, ", "), tr(l, " or ")); }), t.task));
    if (!t.load.empty()) {
        loaded = read_model_file(t.load);
        keep_sizes(vm, t.c.size, loaded->config.size, t.load);
        t.c = merge_loaded(t.c, loaded->config, vm);
    }
    if (vm.count("segment")) parse_segment(t.segment, t.c);
    resolve_segments(t.c);
    // -1 reached check_config as 0 and was called "not 0"; say what was typed
    if (vm.count("threads") && (t.c.threads < 1 || t.c.threads > 64))
        throw usage_error(said("--threads must be 1 to 64, not {}", t.c.threads));
    // 0 is the run's own "steps / 20" inside, so a typed 0 would silently mean something else
    if (vm.count("checkpoint-every") && t.checkpoint_every == 0)
        throw usage_error(said("--checkpoint-every must be 1 step or more (leave it out for steps / 20)"));
    if (t.record_batches && form != format::json)
        throw usage_error(said("--record-batches adds each step's tokens to the json: it goes with --format json"));
    try {
        check_config(t.c);
    } catch (const input_error& e) {
        throw usage_error(e.said_message());
    }
    if (t.scenario.empty() != (t.layer == 0))
        throw usage_error(said("--scenario FILE and --layer L go together: the layer (from 1) that the scenario holds"));
    if (t.layer > t.c.size.layers) throw usage_error(said("--layer {}: the model has {} layers", t.layer, t.c.size.layers));
    if (t.live && (form != format::text || !terminal::is_tty(io.out_fd) || !terminal::is_tty(io.in_fd) || !terminal::escapes_ok()))
        throw usage_error(said("--live draws on a terminal that takes escapes, with --format text"));
    if (!t.save.empty()) check_writable(t.save, said("--save writes a model to a regular file"));
    if (!t.scenario.empty()) check_writable(t.scenario, said("--scenario writes a scenario to a regular file"));
}

// The live screen after a probe, in the columns it has: its content is the report's.
live_content live_frame(const train_config& c, const run_state& s, const batch& held, render_options r,
                        std::size_t cols) {
    r.width = cols;
    return {{live_title(s, r.language, cols)}, live_body(c, s, held, r)};
}

// The run itself, watched by the progress line or the live screen, stoppable by Ctrl-C (and q).
run_result run_training(trainer& tr, const train_args& t, const render_options& r, const console& io) {
    run_options o;
    o.checkpoint_every = t.checkpoint_every;
    o.record_batches = t.record_batches;
    std::optional<live_screen> live;
    // the screen first, so that Ctrl-C is ours while it is taken
    if (t.live) live.emplace(r.language, r.color, io.in_fd, io.out_fd);
    terminal::stop_request stop;
    o.stop = &stop.flag();
    progress_line line(io, r.language);
    const batch held = t.live ? held_out(t.c) : batch{};  // every head on the live screen is shown on it
    if (live) {
        live->stop_with(stop);
        o.watch = [&](const run_state& s) {
            live->update(s.step == s.last_step, [&](std::size_t cols) { return live_frame(t.c, s, held, r, cols); });
        };
    } else o.watch = [&](const run_state& s) { line(s); };
    run_result run = train_run(tr, o);
    line.clear();
    return run;
}

}  // namespace

int cmd_train(const args& a, const console& io) {
    train_args t;
    const lang l = interface_language(a);
    po::options_description model = option_group(l, tr(l, "Model (README.md describes it exactly)"));
    po::options_description training = option_group(l, tr(l, "Training")), files = option_group(l, tr(l, "Files and output"));
    model_options(model, t, l);
    training_options(training, t.c, t.checkpoint_every, l);
    file_options(files, t, l);
    po::options_description all = option_group(l, "");  // no caption: the groups below carry the headings
    all.add(model).add(training).add(files);
    po::variables_map vm;
    if (!parse(io, "train", a, all, {}, vm)) return 0;
    const output out = resolve_output(t.out, io, text_and_json);
    const render_options& r = out.options;
    std::optional<loaded_model> loaded;
    settle_config(t, vm, out.form, io, loaded);
    trainer tr = loaded ? trainer(t.c, std::move(loaded->weights), loaded->steps_done) : trainer(t.c);
    const std::size_t first = tr.steps_done();
    const train_outcome outcome{t.c, run_training(tr, t, r, io), first};
    // the files first: a reader of the report who goes away (| head) must not cost the trained model
    if (!t.save.empty()) write_file_atomically(t.save, model_bytes(t.c, tr.weights(), tr.steps_done()), said("--save writes a model to a regular file"));
    if (!t.scenario.empty()) {
        std::vector<layer_export> layers;
        for (std::size_t l = 1; l <= t.c.size.layers; ++l) layers.push_back(export_layer(t.c, tr.weights(), outcome.run.held, l));
        const std::string toml = layer_scenario(outcome, layers, t.layer);
        write_file_atomically(t.scenario, toml, said("--scenario writes a scenario to a regular file"));
    }
    io.print(out.form == format::json ? train_json(outcome, t.record_batches) : train_text(outcome, r));
    return outcome.run.stopped ? 130 : 0;
}

}  // namespace qkv::cli
