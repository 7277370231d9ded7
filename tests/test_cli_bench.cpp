// `qkv bench --backward` as a user runs it: the JSON's arithmetic (never a time), the memory it
// reports growing as the plan says, the gradients it dumps matching the plain reference, and the
// progress line on a terminal only.
#define BOOST_TEST_MODULE cli_bench
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkv/attention_backward.hpp"
#include "qkv/bench.hpp"
#include "qkv/kernels.hpp"
#include "support/cli_suite.hpp"
#include "support/pty_session.hpp"

using namespace std::chrono_literals;

namespace {

// A float32 .npy file of two dimensions (format 1.0), read by this test's own few lines: the
// magic and version (8 bytes), the header's length (2 bytes, little-endian), the header, the data.
qkv::matrix read_npy(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(10, '\0');
    in.read(head.data(), 10);
    std::string header(std::size_t(std::uint8_t(head[8])) | std::size_t(std::uint8_t(head[9])) << 8, '\0');
    in.read(header.data(), std::streamsize(header.size()));
    BOOST_REQUIRE(header.find("'descr': '<f4'") != std::string::npos);
    std::size_t rows = 0, cols = 0;
    char skip;
    std::istringstream shape(header.substr(header.find("'shape': (") + 10));
    shape >> rows >> skip >> cols;
    qkv::matrix M(rows, cols);
    in.read(reinterpret_cast<char*>(M.data.data()), std::streamsize(M.size() * sizeof(float)));
    BOOST_REQUIRE(in.good());
    return M;
}

}  // namespace

BOOST_AUTO_TEST_CASE(backward_json_counts_the_formulas_work) {
    // n = 64, d = 512, no mask. Forward: 4·2·64·512² + 2·2·64²·512 = 134 217 728 + 8 388 608 =
    // 142 606 336 FLOP. Backward: 8·2·64·512² + 4·2·64²·512 = 268 435 456 + 16 777 216 = 285 212 672.
    const auto r = run_qkv({"bench", "--backward", "--n", "64,128", "--format", "json", "--repeats", "1"});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    BOOST_TEST(r.err.empty(), "nothing on standard error when it is not a terminal: " << r.err);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const double machine = j.at("machine_peak_gflops");
    BOOST_TEST_REQUIRE(j.at("results").size() == 6u);  // three passes at two sizes
    const std::map<std::string, double> flops{{"forward", 142606336.0}, {"backward", 285212672.0},
                                              {"forward+backward", 142606336.0 + 285212672.0}};
    for (const auto& row : j.at("results")) {
        if (row.at("n") != 64) continue;
        const double ms = row.at("ms"), gflops = row.at("gflops");
        BOOST_TEST(std::fabs(gflops - flops.at(row.at("pass")) / (ms / 1e3) / 1e9) <= 1e-6 * gflops, row.dump());
        BOOST_TEST(std::fabs(row.at("percent_of_machine_peak").get<double>() - 100 * gflops / machine) <= 1e-6 * gflops);
    }
    // what the forward keeps at n = 64: Q, K, V, O of 64 × 512 floats and 8 × 64 log-sum-exps =
    // 4·32 768 + 512 = 131 584 floats, a part of every pass's extra memory
    for (const auto& row : j.at("results"))
        BOOST_TEST(row.at("extra_bytes").get<double>() >= 4.0 * (4 * double(row.at("n")) * 512 + 8 * double(row.at("n"))));
    BOOST_TEST(j.at("growth_exponent").contains("forward+backward"));
    BOOST_TEST(j.at("memory_growth_exponent").contains("backward"));
}

BOOST_AUTO_TEST_CASE(the_dumped_gradients_are_the_references) {
    qkv::test::scratch_dir dir("bench");
    const auto r = run_qkv({"bench", "--backward", "--n", "40", "--d-model", "32", "--heads", "4", "--causal",
                            "--repeats", "1", "--dump-dir", dir.path.string()});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    auto load = [&](const std::string& name) { return read_npy((dir / (name + ".npy")).string()); };
    const qkv::attention::weights W{load("W_Q"), load("W_K"), load("W_V"), load("W_O")};
    const qkv::attention::gradients want =
        qkv::attention::backward_reference(load("X_n40"), W, load("dZ_n40"), {.heads = 4, .causal = true});
    // float32 chains of a few dozen terms: 1e-4 of the largest entry is far above their rounding
    for (auto [name, M] : {std::pair{"dX_n40", &want.dX}, {"dW_Q_n40", &want.dW_Q}, {"dW_O_n40", &want.dW_O}}) {
        const qkv::matrix got = load(name);
        float top = 1, gap = 0;
        for (std::size_t i = 0; i < M->size(); ++i)
            top = std::max(top, std::fabs(M->data[i])), gap = std::max(gap, std::fabs(got.data[i] - M->data[i]));
        BOOST_TEST(gap / top <= 1e-4, name);
    }
}

BOOST_AUTO_TEST_CASE(the_progress_line_is_for_a_terminal_only) {
    qkv::test::session s({"bench", "--backward", "--n", "256,512", "--repeats", "3"});
    BOOST_TEST(s.wait_for("backward n = 256: run", 0, 60000ms));
    BOOST_TEST(s.wait_for("left", 0, 60000ms));  // once a size is measured, the time left
    BOOST_TEST(s.finish(120000ms) == 0);
}

BOOST_AUTO_TEST_CASE(the_forward_benchmark_says_how_long_is_left_too) {
    const auto piped = run_qkv({"bench", "--n", "64,128", "--impl", "fused", "--repeats", "1"});
    BOOST_TEST(piped.status == 0);
    BOOST_TEST(piped.err.empty(), piped.err);
    qkv::test::session s({"bench", "--n", "256,512", "--impl", "fused", "--repeats", "3"});
    BOOST_TEST(s.wait_for("fused n = 512: run", 0, 60000ms));
    BOOST_TEST(s.wait_for("left", 0, 60000ms));
    BOOST_TEST(s.finish(120000ms) == 0);
}

namespace {

// A row's breakdown: the stages' shares of the processor time sum to 1, and the threads ran a
// share of wall × threads that is more than none and at most all of it.
void check_breakdown(const nlohmann::json& row, std::initializer_list<const char*> stages) {
    double sum = 0;
    for (const char* k : stages) sum += row.at("breakdown").at(k).get<double>();
    BOOST_TEST(std::fabs(sum - 1.0) <= 1e-9, row.at("breakdown").dump());
    const double running = row.at("breakdown").at("running");
    BOOST_TEST((running > 0.0 && running <= 1.05), row.at("breakdown").dump());
}

// `qkv bench ARGS --format json --repeats 1`: exactly the rows whose `key` is `broken_down` carry a
// breakdown, and each of those into `stages`.
void check_breakdowns(std::vector<std::string> args, const char* key, const char* broken_down,
                      std::initializer_list<const char*> stages) {
    args.insert(args.end(), {"--format", "json", "--repeats", "1"});
    const auto r = run_qkv(args);
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    for (const auto& row : j.at("results")) {
        BOOST_TEST(row.contains("breakdown") == (row.at(key) == broken_down), row.dump());
        if (row.contains("breakdown")) check_breakdown(row, stages);
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_forward_json_breaks_the_fused_pass_down) {
    check_breakdowns({"bench", "--n", "64", "--impl", "blas,fused"}, "impl", "fused",
                     {"pack_weights", "project_k_v", "project_q", "scores", "softmax_exps", "weighted_sum",
                      "output_projection"});
    // and what 2^x costs the scores, a share of the finished product's time: below 1 (the plain
    // product takes some time too); a timing, so its size is not asserted, only that it is one
    const auto r = run_qkv({"bench", "--n", "64,128", "--impl", "fused", "--format", "json", "--repeats", "1"});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    for (const auto& row : j.at("results")) {
        const double exps = row.at("breakdown").at("exps_in_scores").get<double>();
        BOOST_TEST((std::isfinite(exps) && exps > -1.0 && exps < 1.0), row.dump());
    }
}

BOOST_AUTO_TEST_CASE(the_backward_json_breaks_the_backward_down) {
    check_breakdowns({"bench", "--backward", "--n", "64"}, "pass", "backward",
                     {"output_gradient", "weight_gradients", "input_gradient", "row_dots", "copies", "scores", "dP",
                      "softmax_exps", "dV", "dK", "dQ"});
}
