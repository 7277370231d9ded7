// Private to src/cli: what `qkv bench` (commands_bench.cpp) and `qkv bench --backward`
// (commands_bench_backward.cpp) share: the parsed options, the two peaks, the memory check; and
// the attention's shape options, which `qkv bench --tensor-parallel` words and checks alike.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "qkv/attention.hpp"
#include "qkv/bench.hpp"
#include "qkv/cli.hpp"
#include "qkv/i18n.hpp"
#include "qkv/machine_peak.hpp"
#include "status_line.hpp"

namespace qkv::cli {

using attention::impl;

struct bench_args {
    std::string mode, n_list, impl_list, format_name, lang_name, dump_dir, kernels;
    format form = format::text;
    std::size_t d_model = 512, heads = 8, tokens = 2048;
    int threads = 1, repeats = 0;
    bool causal = false, force = false, backward = false;
    lang language = lang::en;
    std::size_t width = 100;  // the terminal's columns (COLUMNS on a pipe, else 100): prose wraps to it
    std::vector<std::size_t> sizes;
    std::vector<impl> impls;
};

// "1 thread", "2 threads": every bench line words its thread count alike (some said "thread(s)").
inline std::string threads_text(int n) { return fmt::format("{} thread{}", n, n == 1 ? "" : "s"); }

// The two denominators: what OpenBLAS's sgemm reaches with the kernel it loaded, and what the
// machine's own FMA units do in its widest instructions, with the kernel's name and width.
struct peaks {
    bench::peak sgemm;
    bench::machine_peak machine;
    std::string corename;
    int kernel_bits = 0;  // 0: a kernel name qkv does not know
    bool narrower() const { return kernel_bits && kernel_bits < machine.isa.bits; }
};

// How long a benchmark's remaining measurements will take, from the wall time each kind of
// measurement took per n² so far (attention's work grows as n²): ", about 12 s left", or "" while
// some kind still to come has not been timed once.
class time_left_estimate {
public:
    void done(const std::string& kind, std::size_t n, double seconds) { per_n2_[kind] = seconds / (double(n) * n); }
    std::string tail(const std::vector<std::pair<std::string, std::size_t>>& todo) const;

private:
    std::map<std::string, double> per_n2_;
};

// The machine's FMA peak and OpenBLAS's sgemm peak on `threads` threads, saying so on the line.
peaks measure_peaks(const status_line& line, int threads);

// --d-model and --heads, with the defaults every bench starts from.
inline void add_shape_options(boost::program_options::options_description& desc, std::size_t& d_model, std::size_t& heads) {
    namespace po = boost::program_options;
    desc.add_options()
        ("d-model", po::value(&d_model)->default_value(512), "width of each token")
        ("heads", po::value(&heads)->default_value(8), "attention heads (must divide --d-model)");
}

// One usage line for a shape or a thread count the benches do not run.
inline void check_shape(std::size_t d_model, std::size_t heads, int threads) {
    if (d_model < 1 || d_model > 16384) throw usage_error("--d-model must be 1 to 16384");
    if (heads < 1 || d_model % heads != 0) throw usage_error(fmt::format("--heads {} does not divide --d-model {}", heads, d_model));
    if (threads < 1 || threads > 256) throw usage_error("--threads must be 1 to 256");
}

// Refuse what cannot fit in memory, unless --force: one line with the estimate.
void check_memory(std::size_t need, const std::string& what, const bench_args& b);

// "OpenBLAS kernel Haswell (256-bit; …)" and which of qkv's own kernels the fused pass runs.
std::string kernel_text(const peaks& p, lang l);

attention::options options_for(const bench_args& b, impl which);

// `qkv bench --backward`: the fused backward, the forward that keeps what it needs, and both.
int run_backward(const console& io, const bench_args& b);

// The .npy files --dump-dir gets (bench_dump.cpp): X for each size, the four weights, Z for each
// kernel and size, and the folder made (one, never a path of them) with every file it will get
// checked: a link, a named pipe or a read-only file is refused before minutes of measuring.
std::string x_dump(std::size_t n);
std::string z_dump(impl i, std::size_t n);
void prepare_dump_dir(const bench_args& b);
void dump_inputs(const bench_args& b, std::size_t n, const bench::inputs& P);

}  // namespace qkv::cli
