// The bench reports (report_bench.hpp) on results built by hand: the JSON carries the result's
// every figure under its documented name, and the text shows them as the table rounds them. The
// figures are made consistent by hand below, so the test also shows the arithmetic a bench does.
#define BOOST_TEST_MODULE report_bench
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>

#include "qkv/report_bench.hpp"

using namespace qkv;
using attention::impl;

namespace {

// qkv bench --n 256,512 --impl blas,fused on a made-up machine: d_model = 512, h = 8, one thread,
// no mask. FLOPs of a forward pass, 4 projections of 2·n·d² and QKᵀ, A·V of 2·n²·d each:
//   n = 256: 4·2·256·512² + 2·2·256²·512 =   536 870 912 +   134 217 728 =   671 088 640
//   n = 512: 4·2·512·512² + 2·2·512²·512 = 1 073 741 824 +   536 870 912 = 1 610 612 736
// At the medians below, GFLOP/s = FLOPs / seconds / 10⁹:
//   blas  256:  8 ms → 83.886080     fused 256:  4 ms → 167.772160
//   blas  512: 32 ms → 50.331648     fused 512: 12 ms → 134.217728
// % of the sgemm peak (100 GFLOP/s) is the same number; % of the machine's (200) half of it.
// Growth: blas 8 → 32 ms as n doubles, log₂ 4 = 2; fused 4 → 12 ms, log₂ 3 = 1.5849625.
bench::forward_result made_up_forward() {
    bench::forward_result r;
    r.asked.sizes = {256, 512};
    r.asked.impls = {impl::blas, impl::fused};
    r.peak.sgemm = {.gflops = 100, .size = 2048, .threads = 1};
    r.peak.machine = {.gflops = 200, .threads = 1, .isa = {"avx512", 16, 512}};
    r.peak.corename = "Sandybridge";  // a 256-bit kernel on a machine whose widest is 512
    r.peak.kernel_bits = 256;
    r.peak.fused_kernels = "avx512";
    auto row = [](impl i, std::size_t n, double ms, double gflops, std::size_t extra) {
        return bench::forward_row{i, n, 1, ms, gflops, gflops, gflops / 2, extra, {}};
    };
    r.rows = {row(impl::blas, 256, 8, 83.886080, 2u << 20), row(impl::fused, 256, 4, 167.772160, 196608),
              row(impl::blas, 512, 32, 50.331648, 8u << 20), row(impl::fused, 512, 12, 134.217728, 393216)};
    // where fused's time went at n = 512: stages of 1, 1, 2, 4, 2, 4, 2 s of thread time = 16 s in
    // all, so pack 1/16 = 0.0625 and scores 4/16 = 0.25; wall 10 s × 2 threads = 20 s, of which
    // the threads ran 16: 0.8
    attention::fused_breakdown b;
    b.pack = 1, b.project_kv = 1, b.project_q = 2, b.scores = 4, b.exps = 2, b.weighted = 4, b.output = 2;
    b.wall = 10, b.threads = 2, b.idle_slots = 0.125;
    r.rows[3].breakdown = bench::shares_of(b, 0.3);
    r.growth = {{impl::blas, 2.0}, {impl::fused, std::log2(3.0)}};
    return r;
}

render_options english(std::size_t width = 100) {
    render_options o;
    o.language = lang::en;
    o.width = width;
    return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(forward_json_has_every_figure_under_its_name) {
    const auto j = bench_json(made_up_forward());
    BOOST_TEST(j.at("peak_gflops").get<double>() == 100.0);
    BOOST_TEST(j.at("machine_peak_gflops").get<double>() == 200.0);
    BOOST_TEST(j.at("machine_isa").at("name").get<std::string>() == "avx512");
    BOOST_TEST(j.at("machine_isa").at("bits").get<int>() == 512);
    BOOST_TEST(j.at("openblas_corename").get<std::string>() == "Sandybridge");
    BOOST_TEST(j.at("openblas_kernel_bits").get<int>() == 256);
    BOOST_TEST(j.at("openblas_kernel_narrower").get<bool>());  // 256 < 512
    BOOST_TEST(j.at("fused_kernels").get<std::string>() == "avx512");
    BOOST_TEST(j.at("causal").get<bool>() == false);
    BOOST_TEST(j.at("sgemm_size").get<int>() == 2048);
    BOOST_TEST_REQUIRE(j.at("results").size() == 4u);
    const auto& first = j.at("results")[0];
    BOOST_TEST(first.at("impl").get<std::string>() == "blas");
    BOOST_TEST(first.at("n").get<int>() == 256);
    BOOST_TEST(first.at("d_model").get<int>() == 512);
    BOOST_TEST(first.at("heads").get<int>() == 8);
    BOOST_TEST(first.at("threads").get<int>() == 1);
    BOOST_TEST(first.at("ms").get<double>() == 8.0);
    BOOST_TEST(first.at("gflops").get<double>() == 83.886080);
    BOOST_TEST(first.at("percent_of_peak").get<double>() == 83.886080);
    BOOST_TEST(first.at("percent_of_machine_peak").get<double>() == 83.886080 / 2);
    BOOST_TEST(first.at("extra_bytes").get<std::size_t>() == 2u << 20);
    BOOST_TEST(!first.contains("breakdown"));
    const auto& b = j.at("results")[3].at("breakdown");
    BOOST_TEST(b.at("thread_cpu_seconds").get<double>() == 16.0);
    BOOST_TEST(b.at("pack_weights").get<double>() == 0.0625);
    BOOST_TEST(b.at("scores").get<double>() == 0.25);
    BOOST_TEST(b.at("running").get<double>() == 0.8);
    BOOST_TEST(b.at("idle_tile_slots").get<double>() == 0.125);
    BOOST_TEST(b.at("exps_in_scores").get<double>() == 0.3);
    BOOST_TEST(j.at("growth_exponent").at("blas").get<double>() == 2.0);
    BOOST_TEST(std::fabs(j.at("growth_exponent").at("fused").get<double>() - 1.5849625) < 1e-7);
}

BOOST_AUTO_TEST_CASE(forward_text_rounds_the_figures_in_the_table) {
    const std::string t = bench_text(made_up_forward(), english());
    // blas at 256: 8.00 ms, 83.9 GFLOP/s, 84% of sgemm, 42% of the machine (41.9), 2 MiB; in the
    // columns "{:<10} {:>6} {:>11.2f} {:>9.1f} {:>7.0f}% {:>8.0f}% {:>13}"
    BOOST_TEST(t.find("blas          256        8.00      83.9      84%       42%       2.0 MiB\n") != std::string::npos, t);
    BOOST_TEST(t.find("fused         512       12.00     134.2     134%       67%     384.0 KiB\n") != std::string::npos, t);
    BOOST_TEST(t.find("growth exponent (time ∝ n^k, least squares of log t on log n): blas 2.00, fused 1.58\n") != std::string::npos, t);
    // the sgemm peak, 100 of the machine's 200: 50%; and the kernel narrower than the machine
    BOOST_TEST(t.find("on 1 thread: 100.0 GFLOP/s (50% of the machine's)") != std::string::npos, t);
    BOOST_TEST(t.find("OpenBLAS kernel Sandybridge (256-bit), narrower than this CPU's 512-bit avx512") != std::string::npos, t);
    BOOST_TEST(t.find("fused runs its products on qkv's own avx512 tile kernels, not OpenBLAS") != std::string::npos, t);
    // the chart: time against n, b for blas and f for fused, both fitted slopes in the legend
    BOOST_TEST(t.find("b blas (slope 2.00)") != std::string::npos, t);
    BOOST_TEST(t.find("f fused (slope 1.58)") != std::string::npos, t);
    // and the prose under it (one line on a screen this wide) names the two implementations that
    // ran, not the reference
    const std::string wide = bench_text(made_up_forward(), english(1000));
    BOOST_TEST(wide.find("blas keeps each head's whole n × n score matrix") != std::string::npos, wide);
    BOOST_TEST(wide.find("reference is the lessons' plain loops") == std::string::npos, wide);
}

BOOST_AUTO_TEST_CASE(one_size_has_no_growth_to_show) {
    bench::forward_result r = made_up_forward();
    r.asked.sizes = {256};
    r.rows.resize(2);
    r.growth = {{impl::blas, std::nullopt}, {impl::fused, std::nullopt}};
    BOOST_TEST(bench_json(r).at("growth_exponent").at("fused").is_null());
    const std::string t = bench_text(r, english());
    BOOST_TEST(t.find("blas –, fused –") != std::string::npos, t);
    BOOST_TEST(t.find("(log scale)") == std::string::npos, t);  // fewer than two n: no chart
}

BOOST_AUTO_TEST_CASE(backward_json_and_text) {
    // --backward at n = 64: the forward 142 606 336 FLOPs (4·2·64·512² + 2·2·64²·512) in 2 ms is
    // 71.303168 GFLOP/s, 35.651584% of a 200 GFLOP/s machine
    bench::backward_result r;
    r.asked.sizes = {64};
    r.asked.causal = true;
    r.peak.machine = {.gflops = 200, .threads = 1, .isa = {"avx2", 8, 256}};
    r.peak.fused_kernels = "avx2";
    r.rows = {{bench::pass::forward, 64, 2.0, 71.303168, 35.651584, 1u << 20, {}}};
    r.growths = {{bench::pass::forward, {std::nullopt, std::nullopt}}};
    const auto j = bench_json(r);
    BOOST_TEST(j.at("causal").get<bool>());
    BOOST_TEST(j.at("results")[0].at("pass").get<std::string>() == "forward");
    BOOST_TEST(j.at("results")[0].at("percent_of_machine_peak").get<double>() == 35.651584);
    BOOST_TEST(j.at("growth_exponent").at("forward").is_null());
    BOOST_TEST(j.at("memory_growth_exponent").at("forward").is_null());
    const std::string t = bench_text(r, english(200));  // the header's facts on one line
    // "{:<18} {:>6} {:>11.2f} {:>9.1f} {:>8.0f}% {:>13}"
    BOOST_TEST(t.find("forward                64        2.00      71.3       36%       1.0 MiB\n") != std::string::npos, t);
    BOOST_TEST(t.find("h = 8 (d_k = 64), 1 thread, causal mask") != std::string::npos, t);
}

BOOST_AUTO_TEST_CASE(kv_json_and_text) {
    // at position 64: 0.5 ms with the cache, 20 ms without: 40 times faster
    bench::kv_result r;
    r.asked.tokens = 64;
    r.points = {{{64, 0.5e-3, 20e-3}, 40.0}};
    const auto j = bench_json(r);
    BOOST_TEST(j.at("tokens").get<int>() == 64);
    BOOST_TEST(j.at("positions")[0].at("ms_with_cache").get<double>() == 0.5);
    BOOST_TEST(j.at("positions")[0].at("ms_without_cache").get<double>() == 20.0);
    BOOST_TEST(j.at("positions")[0].at("speed_up").get<double>() == 40.0);
    BOOST_TEST(j.at("growth_exponent").at("with_cache").is_null());
    // "{:>8} {:>16.3f} {:>18.3f} {:>8.0f}×"
    const std::string t = bench_text(r, english());
    BOOST_TEST(t.find("      64            0.500             20.000       40×\n") != std::string::npos, t);
}

BOOST_AUTO_TEST_CASE(tensor_parallel_json_and_text) {
    // two ranks, the slower step 30 ms against 50 ms on one rank: speed-up 50 / 30 = 1.67,
    // efficiency 1.67 / 2 = 83%
    bench::tensor_parallel_result r;
    r.n = 256, r.d_model = 64, r.heads = 8, r.ranks = 2, r.runs = 3, r.mpi = true, r.one_rank_ms = 50;
    r.per_rank = {{4, 25, 2, 27, 65536, 65536}, {4, 26, 4, 30, 65536, 65536}};
    const auto j = bench_json(r);
    BOOST_TEST(j.at("mpi").get<bool>());
    BOOST_TEST(j.at("per_rank")[1].at("step_ms").get<double>() == 30.0);
    BOOST_TEST(j.at("parallel_ms").get<double>() == 30.0);
    BOOST_TEST(std::fabs(j.at("speed_up").get<double>() - 5.0 / 3) < 1e-12);
    const std::string t = bench_text(r, english());
    BOOST_TEST(t.find("speed-up 1.67×, parallel efficiency 83%") != std::string::npos, t);
    BOOST_TEST(t.find("On real ranks") == std::string::npos, t);  // said only on one rank
}
