// A page's training run: the options read from the query into a configuration that check_config
// accepts, the same trainer and run `qkv train` uses, and its probes and outcome as events.
#include "training_runs.hpp"

#include <chrono>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qkv/error.hpp"
#include "qkv/render_json.hpp"
#include "qkv/report_train.hpp"
#include "qkv/report_train_progress.hpp"
#include "qkv/task_data.hpp"
#include "qkv/tasks.hpp"
#include "qkv/trainer.hpp"
#include "qkv/training_run.hpp"
#include "http_error.hpp"

namespace qkv::serve {
namespace {

using json = nlohmann::ordered_json;
using namespace qkv::train;

float real_param(const params& p, const std::string& name, float fallback, float lo, float hi) {
    const std::string text = param(p, name);
    if (text.empty()) return fallback;
    std::size_t used = 0;
    float v = 0;
    try {
        v = std::stof(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || !(v >= lo && v <= hi))
        throw http_error{400, said("{} must be a number from {} to {}", name, lo, hi)};
    return v;
}

train_config config_of(const params& p, const limits& limit) {
    train_config c;
    const std::string task = param(p, "task", std::string(tasks().front().name));
    if (!parse_task(task, c.what)) throw http_error{400, said("task must be {}", task_list(", ", " or "))};
    auto whole = [&](const char* name, std::size_t fallback, long long lo, long long hi) {
        return static_cast<std::size_t>(number_param(p, name, static_cast<long long>(fallback), lo, hi));
    };
    c.steps = whole("steps", std::min<std::size_t>(c.steps, limit.train_steps), 1, static_cast<long long>(limit.train_steps));
    c.seed = static_cast<std::uint64_t>(number_param(p, "seed", 1, 0, 1LL << 53));
    c.size.vocab = whole("vocab", c.size.vocab, 2, 512);
    c.size.seq = whole("seq", c.size.seq, 2, 256);
    c.size.d_model = whole("d_model", c.size.d_model, 1, 256);
    c.size.heads = whole("heads", c.size.heads, 1, 16);
    c.size.layers = whole("layers", c.size.layers, 1, 4);
    c.batch = whole("batch", c.batch, 1, 256);
    c.adam.lr = real_param(p, "lr", c.adam.lr, 1e-6f, 1.0f);
    resolve_segments(c);
    try {
        check_config(c);
    } catch (const input_error& e) {
        throw http_error{400, e.said_message()};
    }
    return c;
}

std::string event(std::string_view name, const std::string& data) { return fmt::format("event: {}\ndata: {}\n\n", name, data); }

void add(training_run& r, std::string e, bool last = false) {
    {
        const std::lock_guard<std::mutex> hold(r.m);
        r.events.push_back(std::move(e));
        if (last) r.finished = true;
    }
    r.more.notify_all();
}

// One probe as the page draws it: the step, the losses, the progress line's words, and every
// head's attention on the held-out sequence with its scores.
std::string progress_json(const run_state& s, lang l) {
    json heads = json::array();
    for (const head_view& h : s.latest->heads) {
        json A = json::array();
        for (std::size_t i = 0; i < h.A.rows; ++i) A.push_back(std::vector<float>(h.A.row(i), h.A.row(i) + h.A.cols));
        heads.push_back({{"layer", h.layer}, {"head", h.head}, {"previous_token", h.previous_token}, {"induction", h.induction},
                         {"A", A}});
    }
    // the first probe comes before any step: no loss yet
    const step_record* last = s.steps->empty() ? nullptr : &s.steps->back();
    return render_json(json{{"step", s.step}, {"last_step", s.last_step}, {"loss", last ? json(last->loss) : json(nullptr)},
                            {"loss_repeated", last ? json(last->loss_repeated) : json(nullptr)},
                            {"held_loss", s.latest->loss}, {"best_induction", s.best_induction}, {"seconds", s.seconds},
                            {"text", progress_text(s, l)}, {"heads", heads}},
                       -1);
}

void train_thread(training_run& r, train_config c, lang l) {
    try {
        const batch held = held_out(c);
        add(r, event("start", render_json(json{{"id", r.id}, {"steps", c.steps}, {"seed", c.seed}, {"vocab", c.size.vocab},
                                                 {"seq", c.size.seq}, {"layers", c.size.layers}, {"heads", c.size.heads},
                                                 {"tokens", held.tokens}},
                                            -1)));
        trainer t(c);
        run_options o;
        o.stop = &r.stop;
        auto last_sent = std::chrono::steady_clock::now() - std::chrono::seconds(1);
        o.watch = [&](const run_state& s) {
            const auto now = std::chrono::steady_clock::now();
            if (s.step != s.last_step && now - last_sent < std::chrono::milliseconds(100)) return;
            last_sent = now;
            add(r, event("progress", progress_json(s, l)));
        };
        const train_outcome outcome{c, train_run(t, o), 0};
        render_options words;
        words.language = l;
        words.width = 100;
        const auto drop = outcome.run.drop;
        add(r, event("report", render_json(json{{"text", train_text(outcome, words)}, {"roles", head_roles(outcome, l)},
                                                 {"drop_step", drop ? json(*drop) : json(nullptr)}},
                                            -1)));
        add(r, event("done", train_json(outcome, false)), true);
    } catch (const input_error& e) {
        add(r, event("error", render_json(json{{"error", e.said_message().in(l)}}, -1)), true);
    } catch (const std::exception& e) {
        add(r, event("error", render_json(json{{"error", e.what()}}, -1)), true);
    }
}

}  // namespace

training_runs::~training_runs() {
    stop_all();
    for (auto& [id, r] : runs_)
        if (r->worker.joinable()) r->worker.join();
}

std::string training_runs::start(const params& p, const std::string& visitor, lang l) {
    const train_config c = config_of(p, limit_);
    const std::lock_guard<std::mutex> hold(m_);
    std::size_t going = 0;
    for (auto it = runs_.begin(); it != runs_.end();) {
        training_run& r = *it->second;
        bool done;
        {
            const std::lock_guard<std::mutex> h(r.m);
            done = r.finished;
        }
        if (!done && r.visitor == visitor) throw http_error{409, said("your run {} is still going: stop it first", r.id)};
        going += !done;
        // a finished run is kept for its readers until the visitor starts another
        if (done && r.visitor == visitor) {
            if (r.worker.joinable()) r.worker.join();
            it = runs_.erase(it);
        } else ++it;
    }
    if (going >= limit_.train_runs)
        throw http_error{503, said("{} runs are going, the most this server trains at once; try again soon", going)};
    auto r = std::make_shared<training_run>();
    r->id = fmt::format("{}", ++made_);
    r->visitor = visitor;
    r->worker = std::thread(train_thread, std::ref(*r), c, l);
    runs_[r->id] = r;
    return render_json(json{{"id", r->id}, {"events", fmt::format("/api/train/{}/events", r->id)}}, -1);
}

std::shared_ptr<training_run> training_runs::find(const std::string& id) {
    const std::lock_guard<std::mutex> hold(m_);
    auto it = runs_.find(id);
    if (it == runs_.end()) throw http_error{404, said("no training run '{}'", id.substr(0, 32))};
    return it->second;
}

void training_runs::stop(const std::string& id, const std::string& visitor) {
    auto r = find(id);
    if (r->visitor != visitor) throw http_error{403, said("only who started a run stops it")};
    r->stop = true;
}

void training_runs::stop_all() {
    const std::lock_guard<std::mutex> hold(m_);
    for (auto& [id, r] : runs_) r->stop = true;
}

}  // namespace qkv::serve
