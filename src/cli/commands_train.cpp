// `qkv train`: trains a small attention-only transformer from scratch and shows what its heads
// learned; --save / --load a model, --scenario a trained layer for the lessons, --live to watch.
#include <cmath>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "qkv/cli.hpp"
#include "qkv/head_scores.hpp"
#include "qkv/keep_budget.hpp"
#include "qkv/live_screen.hpp"
#include "qkv/model_file.hpp"
#include "qkv/report_train.hpp"
#include "qkv/report_train_progress.hpp"
#include "qkv/scenario.hpp"
#include "qkv/stop_request.hpp"
#include "qkv/tasks.hpp"
#include "qkv/terminal.hpp"
#include "qkv/toml_file.hpp"
#include "qkv/trainer.hpp"
#include "file_output.hpp"
#include "progress_line.hpp"

namespace qkv::cli {
namespace {

namespace fs = std::filesystem;
namespace po = boost::program_options;
using namespace qkv::train;

struct train_args {
    train_config c;
    std::string task = "induction", segment, save, load, scenario;
    std::size_t layer = 0, checkpoint_every = 0;
    bool live = false, record_batches = false;
    output_choice out;
    lang out_lang = lang::en;  // --lang as resolved, for the refusals
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

// --record-batches keeps every step's batch × seq tokens for the JSON, some 40 bytes a token as
// numbers in memory and as text: 4096 × 64 × 10⁴ steps grew until the memory ran out and lost the
// run. What it would hold is refused before the first step when a run may not keep it (the budget
// of a lesson's run, keep_budget.hpp: half of the memory free, at most 2 GiB).
constexpr double bytes_per_recorded_token = 40;

void check_batches_recorded(const train_args& t) {
    if (!t.record_batches) return;
    const double tokens = double(t.c.steps) * double(t.c.batch) * double(t.c.size.seq);
    const double bytes = tokens * bytes_per_recorded_token, limit = double(keep_budget().bytes);
    if (bytes > limit)
        throw usage_error(fmt::format(fmt::runtime(tr(t.out_lang, "--record-batches would hold {:.1f} GiB ({} steps × batch {} × seq {} "
                                                                  "tokens, about {} bytes each), more than the {:.1f} GiB a run may keep; "
                                                                  "record fewer steps or a smaller batch")),
                                      bytes / double(1 << 30), t.c.steps, t.c.batch, t.c.size.seq, bytes_per_recorded_token,
                                      limit / double(1 << 30)));
}

// The scenario --scenario writes holds every layer's X [seq, d_model] and four weights
// [d_model, d_model] beside the chosen layer's, each number some 12 to 16 bytes of text: one past
// what a scenario file may hold (toml_file.hpp) would be written and then refused by --data. Said
// before the first step.
void check_scenario_size(const train_args& t) {
    if (t.scenario.empty()) return;
    const model_size& s = t.c.size;
    const double numbers = double(s.layers + 1) * (double(s.seq) * double(s.d_model) + 4.0 * double(s.d_model) * double(s.d_model));
    const double bytes = 16 * numbers + 64 * double(s.seq);
    if (bytes > double(max_toml_bytes))
        throw usage_error(fmt::format(fmt::runtime(tr(t.out_lang, "--scenario would write about {:.0f} MiB (every layer's X and weights at "
                                                                  "d_model {}), more than the {} MiB a scenario file may hold")),
                                      bytes / double(1 << 20), s.d_model, max_toml_bytes >> 20));
}

// Whether two names are one file: the same text, or (for files that exist) the same inode.
bool same_file(const std::string& a, const std::string& b) {
    std::error_code ec;
    if (fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec) && !ec) return true;
    return fs::equivalent(a, b, ec) && !ec;
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
    if (!t.save.empty() && !t.scenario.empty() && same_file(t.save, t.scenario))
        throw usage_error(fmt::format(fmt::runtime(tr(t.out_lang, "--save and --scenario name the same file, {}: the scenario would replace the model")),
                                      t.save));
    check_batches_recorded(t);
    check_scenario_size(t);
}

// Weights that are not finite numbers from the first step on: an --init-embedding of 3e38 drew inf,
// and the file --save wrote was refused by --load. Said before the first step, naming the option.
void check_initial_weights(const parameters& w, lang l) {
    for (const tensor_spec& t : w.table())
        for (std::size_t i = 0; i < t.size(); ++i)
            if (const float x = w.data()[t.offset + i]; !std::isfinite(x)) {
                const char* option = t.name == "E" ? "--init-embedding" : t.name == "P" ? "--init-position" : "--init-gain";
                throw usage_error(fmt::format(fmt::runtime(tr(l, "{} is too large: it makes {}[{}, {}] = {}, not a finite number")), option,
                                              t.full_name(), i / t.cols + 1, i % t.cols + 1, x));
            }
}

// Runs `write`; a file it could not write is noted in `not_written` (its one line), not thrown, so
// that the report of the run is printed all the same.
template <typename F>
void keep_going(std::vector<std::string>& not_written, F&& write) {
    try {
        write();
    } catch (const input_error& e) {
        not_written.push_back(e.what());
    }
}

// The live screen after a probe, in the columns and rows it has, at its page of heads: its content
// is the report's.
live_content live_frame(const train_config& c, const run_state& s, const batch& held, render_options r,
                        const live_size& at) {
    r.width = at.cols;
    live_content out{{live_title(s, r.language, at.cols)}, {}, 1};
    // the title above and the keys below take a row each
    out.body = live_body(c, s, held, r, at.rows > 2 ? at.rows - 2 : 1, at.page, &out.pages);
    return out;
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
            live->update(s.step == s.last_step, [&](const live_size& at) { return live_frame(t.c, s, held, r, at); });
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
    t.out_lang = r.language;
    settle_config(t, vm, out.form, io, loaded);
    if (loaded && t.c.steps > max_steps_done - loaded->steps_done)  // never reached: the file's steps_done is held to 2^53
        throw usage_error(fmt::format("--steps {} after the {} steps of {} is past any run", t.c.steps, loaded->steps_done, t.load));
    trainer tr = loaded ? trainer(t.c, std::move(loaded->weights), loaded->steps_done) : trainer(t.c);
    check_initial_weights(tr.weights(), t.out_lang);
    const std::size_t first = tr.steps_done();
    const train_outcome outcome{t.c, run_training(tr, t, r, io), first};
    // the files first: a reader of the report who goes away (| head) must not cost the trained model;
    // and whatever happens to them, the report is printed, then why a file was not written (status 2)
    std::vector<std::string> not_written;
    if (!t.save.empty())
        keep_going(not_written, [&] {
            const std::string bytes = model_bytes(t.c, tr.weights(), tr.steps_done());
            (void)read_model(bytes, t.save);  // a file --load would refuse is not written
            write_file_atomically(t.save, bytes, said("--save writes a model to a regular file"));
        });
    if (!t.scenario.empty())
        keep_going(not_written, [&] {
            std::vector<layer_export> layers;
            for (std::size_t l = 1; l <= t.c.size.layers; ++l) layers.push_back(export_layer(t.c, tr.weights(), outcome.run.held, l));
            const std::string toml = layer_scenario(outcome, layers, t.layer);
            (void)read_scenario(read_toml_text(toml, t.scenario));  // nor one --data would refuse
            write_file_atomically(t.scenario, toml, said("--scenario writes a scenario to a regular file"));
        });
    io.print(out.form == format::json ? train_json(outcome, t.record_batches) : train_text(outcome, r));
    for (const std::string& why : not_written) io.tell(fmt::format("qkv: {}\n", why));
    return !not_written.empty() ? 2 : outcome.run.stopped ? 130 : 0;
}

}  // namespace qkv::cli
