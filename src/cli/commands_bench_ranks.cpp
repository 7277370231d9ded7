// `qkv bench --tensor-parallel`: the options read and checked, attention at scale split by heads
// over real ranks (ranks: tensor_parallel.hpp; under mpirun), and its result handed to the report
// (report_bench.hpp), printed by rank 0.
#include <fmt/format.h>

#include "qkv/cli.hpp"
#include "qkv/render_json.hpp"
#include "qkv/report_bench.hpp"
#include "qkv/tensor_parallel.hpp"
#include "bench_common.hpp"

namespace qkv::cli {

int cmd_bench_tensor_parallel(const args& a, const console& io) {
    namespace po = boost::program_options;
    std::size_t n = 4096, d_model = 512, heads = 8;
    int threads = 1, repeats = 3;
    std::string format_name, lang_name, color_name = "auto";  // nothing painted: --color is only checked
    bool tensor_parallel = false;
    const lang hl = interface_language(a);
    po::options_description desc = option_group(hl, tr(hl, "Options"));
    add_help_option(desc, hl);
    desc.add_options()
        ("tensor-parallel", po::bool_switch(&tensor_parallel), tr(hl, "split by heads over the ranks of mpirun -np P (P must divide --heads)").c_str())
        ("n", po::value(&n)->default_value(4096), tr(hl, "sequence length").c_str());
    add_shape_options(desc, d_model, heads, hl);
    desc.add_options()
        ("threads", po::value(&threads)->default_value(1), tr(hl, "threads per rank").c_str())
        ("repeats", po::value(&repeats)->default_value(3), tr(hl, "timed runs (after one that warms up)").c_str());
    add_format_option(desc, format_name, text_and_json, hl);
    add_lang_option(desc, lang_name, hl);
    add_color_option(desc, color_name, hl, color_help_short);
    if (!parse(io, "bench", a, desc)) return 0;
    check_common_options({lang_name, color_name}, io);
    const format form = format_of(format_name, text_and_json);
    render_options words;
    words.language = language_of(lang_name);
    if (n < 1 || n > (1u << 20)) throw usage_error(said("--n must be 1 to 1048576"));
    check_shape(d_model, heads, threads);
    if (repeats < 1 || repeats > 1000) throw usage_error(said("--repeats must be 1 to 1000"));
    const bench::tensor_parallel_result t = ranks::run_tensor_parallel(n, d_model, heads, threads, repeats);
    io.print(form == format::json ? render_json(bench_json(t)) + "\n" : bench_text(t, words));
    return 0;
}

}  // namespace qkv::cli
