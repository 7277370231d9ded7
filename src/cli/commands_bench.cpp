// `qkv bench`, `qkv bench --backward` and `qkv bench kv`: the options read and checked, the
// measurement run (scale: bench_forward, bench_backward, bench_kv) with a progress line on a
// terminal, and its result handed to the report (report_bench.hpp) as text or JSON.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "qkv/bench_backward.hpp"
#include "qkv/bench_dump.hpp"
#include "qkv/bench_forward.hpp"
#include "qkv/bench_kv.hpp"
#include "qkv/cli.hpp"
#include "qkv/cpu_name.hpp"
#include "qkv/file_read.hpp"
#include "qkv/kernel_builds.hpp"
#include "qkv/memory.hpp"
#include "qkv/progress.hpp"
#include "qkv/render_json.hpp"
#include "qkv/report_bench.hpp"
#include "qkv/report_peers.hpp"
#include "qkv/terminal.hpp"
#include "bench_common.hpp"
#include "status_line.hpp"

namespace qkv::cli {
namespace {

namespace po = boost::program_options;
using attention::impl;

struct bench_args {
    bench::setup asked;
    std::string mode, n_list, impl_list, format_name, lang_name, color_name = "auto";  // bench paints nothing: --color is only checked
    bool backward = false, force = false;
    format form = format::text;
    render_options words;  // the language, and the terminal's columns (COLUMNS on a pipe, else 100)
};

// "256,512,1024" -> {256, 512, 1024}
std::vector<std::size_t> parse_sizes(const std::string& list) {
    std::vector<std::size_t> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string item = list.substr(start, comma - start);
        std::size_t used = 0;
        long long v = 0;
        try { v = std::stoll(item, &used); } catch (const std::exception&) { used = 0; }
        if (item.empty() || used != item.size() || v < 1 || v > (1LL << 24))
            throw usage_error(said("--n wants sizes from 1 to {} separated by commas, not '{}'", 1 << 24, item));
        out.push_back(std::size_t(v));
        start = comma + 1;
    }
    return out;
}

std::vector<impl> parse_impls(const std::string& list) {
    std::vector<impl> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string item = list.substr(start, comma - start);
        auto i = attention::parse_impl(item);
        if (!i) throw usage_error(said("--impl wants reference, blas or fused (comma-separated), not '{}'", item));
        if (std::find(out.begin(), out.end(), *i) == out.end()) out.push_back(*i);
        start = comma + 1;
    }
    return out;
}

// "avx512, avx2 or plain" joined in the language's words.
std::string kernel_choice_in(lang l) {
    std::string out = attention::kernel_build_choice();
    for (const auto& [en, word] : {std::pair{std::string(" or "), tr(l, " or ")}, std::pair{std::string(", "), tr(l, ", ")}})
        for (std::size_t at = out.find(en); at != std::string::npos; at = out.find(en, at + word.size())) out.replace(at, en.size(), word);
    return out;
}

// --kernels: a build this processor runs, pinned for the whole run.
void pin_kernels(const std::string& build) {
    if (build.empty() || attention::use_kernels(build)) return;
    if (!attention::find_kernel_build(build))
        throw usage_error(said("--kernels must be {}, not '{}'", sentence::worded(kernel_choice_in), build));
    throw usage_error(said("--kernels {}: this processor cannot run them (it runs {})", build, attention::fused_kernels_in_use()));
}

bench_args parse_bench_args(const console& io, const args& a, bool& help) {
    bench_args b;
    bench::setup& s = b.asked;
    std::string kernels;
    const lang hl = interface_language(a);
    po::options_description desc = option_group(hl, tr(hl, "Options"));
    add_help_option(desc, hl);
    desc.add_options()
        ("mode", po::value(&b.mode), tr(hl, "kv: decoding with and without the KV cache").c_str())
        ("tensor-parallel", tr(hl, "under mpirun -np P: split by heads over the ranks (qkv bench --tensor-parallel --help)").c_str())
        ("n", po::value(&b.n_list)->default_value("256,512,1024,2048,4096"), tr(hl, "sequence lengths, comma-separated").c_str());
    add_shape_options(desc, s.d_model, s.heads, hl);
    desc.add_options()
        ("threads", po::value(&s.threads)->default_value(1), tr(hl, "threads (fused: ours; blas: OpenBLAS's)").c_str())
        ("causal", po::bool_switch(&s.causal), tr(hl, "each token sees only itself and earlier ones").c_str())
        ("backward", po::bool_switch(&b.backward), tr(hl, "time the fused backward too: the forward that keeps what it needs, the backward, and both").c_str())
        ("impl", po::value(&b.impl_list)->default_value("blas,fused"), tr(hl, "reference, blas, fused (comma-separated; reference is slow)").c_str())
        ("repeats", po::value(&s.repeats)->default_value(0), tr(hl, "timed runs per size (0: enough for a stable median)").c_str())
        ("tokens", po::value(&s.tokens)->default_value(2048), tr(hl, "bench kv: tokens to decode").c_str())
        ("kernels", po::value(&kernels),
         fmt::format(fmt::runtime(tr(hl, "qkv's own kernels (fused products, softmax exps): {} (default: the widest this CPU runs)")),
                     kernel_choice_in(hl)).c_str())
        ("force", po::bool_switch(&b.force), tr(hl, "run sizes even when they look too big for memory").c_str());
    add_format_option(desc, b.format_name, text_and_json, hl);
    add_lang_option(desc, b.lang_name, hl);
    add_color_option(desc, b.color_name, hl, color_help_short);
    desc.add_options()
        ("dump-dir", po::value(&s.dump_dir), tr(hl, "also write X, the weights and each output as .npy files here (bench/compare_torch.py)").c_str());
    po::positional_options_description pos;
    pos.add("mode", 1);
    po::variables_map vm;
    help = !parse(io, "bench", a, desc, pos, vm);
    if (help) return b;
    if (!b.mode.empty() && b.mode != "kv") throw usage_error(said("unknown mode '{}'; the one mode is kv", b.mode));
    // bench kv decodes --tokens one at a time, forward only: --n and --backward were taken and ignored
    if (b.mode == "kv")
        for (const char* o : {"n", "backward"})
            if (vm.count(o) && !vm[o].defaulted())
                throw usage_error(said("--{} is not for bench kv, which decodes --tokens tokens forward only", o));
    b.form = format_of(b.format_name, text_and_json);
    b.words.width = terminal::width(io.out_fd);
    b.words.language = language_of(b.lang_name);
    check_common_options({b.lang_name, b.color_name}, io);
    check_shape(s.d_model, s.heads, s.threads);
    if (s.repeats < 0 || s.repeats > 1000) throw usage_error(said("--repeats must be 0 to 1000"));
    if (s.tokens < 2 || s.tokens > (1u << 20)) throw usage_error(said("--tokens must be 2 to 1048576"));
    pin_kernels(kernels);
    s.sizes = parse_sizes(b.n_list);
    s.impls = parse_impls(b.impl_list);
    s.breakdown = b.form == format::json;  // where the fused passes' time went: the JSON's alone
    return b;
}

// Refuse what cannot fit in memory, unless --force: one line with the estimate.
void check_memory(std::size_t need, const std::string& what, const bench_args& b) {
    const auto have = available_memory();
    if (b.force || !have || double(need) <= 0.9 * double(*have)) return;
    throw usage_error(said("{} needs about {} of memory but {} is available; choose smaller sizes "
                                  "(or --impl fused), or add --force to try anyway",
                                  what, bench::human_bytes(double(need)), bench::human_bytes(double(*have))));
}

// The progress line's words for each step of a measurement; nothing to call off a terminal.
bench::progress_fn progress_on(const status_line& bar, int threads, lang l) {
    if (!bar.on()) return {};
    return [&bar, threads, l](const bench::progress& p) {
        using step = bench::progress::step;
        // "{1}" is English's plural s, which Chinese leaves out
        auto on = [&](std::string_view message) { return fmt::format(fmt::runtime(tr(l, message)), threads, threads == 1 ? "" : "s"); };
        if (p.what == step::machine_peak) bar.show(on(translatable("measuring the machine's FMA peak on {0} thread{1} …")));
        if (p.what == step::sgemm_peak) bar.show(on(translatable("measuring the sgemm peak on {0} thread{1} …")));
        if (p.what == step::timing)
            bar.show(fmt::format(fmt::runtime(tr(l, "{} n = {}: run {}{} …")), p.name, p.n, p.run,
                                 p.seconds_left ? tr(l, ", ") + time_left(*p.seconds_left, l) : ""));
        if (p.what == step::decoding) bar.show(fmt::format(fmt::runtime(tr(l, "decoding: token {} of {} …")), p.n, p.of));
    };
}

// What bench/compare_ort.py and bench/compare_torch.py kept (bench/peer_record.py) for the kernels
// this bench runs, on this CPU: read before the measurement, so that a record that cannot be read
// stops the bench at once, naming it, and not after minutes of timing.
bench::peers_view peers_of_this_build() {
    std::optional<std::string> path;
    try {
        path = (std::filesystem::path(progress_path()).parent_path() / "peers.json").string();
    } catch (const input_error&) {}  // no folder for state: nothing was kept, nor can be
    std::vector<bench::peer_row> rows;
    if (path) {
        std::string text;
        // a record holds a few hundred bytes a case: 16 MiB is far past any the scripts write
        if (auto no = read_file_capped(*path, std::uint64_t{16} << 20, text); !no)
            rows = bench::parse_peer_record(text, *path);
        else if (*no != "not found")
            throw input_error(source_loc{*path, 0, 0}, said("cannot read the peers' record: {}", *no));
    }
    return bench::peers_for(rows, std::string(attention::fused_kernels_in_use()), bench::cpu_name(), path);
}

// The measurement made with a progress line, its result in the format asked for, with what the
// peers measured beside it (not for bench kv: no peer decodes here).
template <typename Measure>
int measure_and_report(const console& io, const bench_args& b, Measure measure, bool with_peers = true) {
    const std::optional<bench::peers_view> peers = with_peers ? std::optional(peers_of_this_build()) : std::nullopt;
    const status_line bar{io};
    const auto result = measure(b.asked, progress_on(bar, b.asked.threads, b.words.language));
    bar.clear();
    if (b.form == format::json) {
        auto j = bench_json(result);
        if (peers) j["peers"] = bench::peers_json(*peers);
        io.print(render_json(j) + "\n");
    } else {
        io.print(bench_text(result, b.words) + (peers ? bench::peers_text(*peers, b.words.language, b.words.width) : ""));
    }
    return 0;
}

int run_forward(const console& io, const bench_args& b) {
    const bench::setup& s = b.asked;
    for (impl i : s.impls)  // every implementation at every n fits, or the bench says which does not before it starts
        for (std::size_t n : s.sizes) {
            const std::size_t extra = attention::extra_bytes(i, n, s.d_model, bench::options_for(s, i));
            check_memory(bench::io_bytes(n, s.d_model) + extra,
                         fmt::format("{} at n = {} (extra {})", attention::impl_name(i), n, bench::human_bytes(double(extra))), b);
        }
    bench::prepare_dump_dir(s);
    return measure_and_report(io, b, bench::measure_forward);
}

int run_backward(const console& io, const bench_args& b) {
    for (std::size_t n : b.asked.sizes)
        check_memory(bench::io_bytes(n, b.asked.d_model) * 4 + bench::pass_extra_bytes(bench::pass::both, n, b.asked),
                     fmt::format("the backward at n = {}", n), b);
    return measure_and_report(io, b, bench::measure_backward);
}

int run_kv(const console& io, const bench_args& b) {
    const std::size_t T = b.asked.tokens, d = b.asked.d_model;
    check_memory(bench::io_bytes(T, d) * 2 + attention::extra_bytes(impl::fused, T, d, bench::kv_options(b.asked)),
                 fmt::format("decoding {} tokens", T), b);
    return measure_and_report(io, b, bench::measure_kv, false);
}

}  // namespace

int cmd_bench(const args& a, const console& io) {
    if (std::find(a.begin(), a.end(), "--tensor-parallel") != a.end()) return cmd_bench_tensor_parallel(a, io);
    bool help = false;
    const bench_args b = parse_bench_args(io, a, help);
    if (help) return 0;
    return b.mode == "kv" ? run_kv(io, b) : b.backward ? run_backward(io, b) : run_forward(io, b);
}

}  // namespace qkv::cli
