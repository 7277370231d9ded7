// `qkv bench --backward` as a user runs it: the JSON's arithmetic (never a time), the memory it
// reports growing as the plan says, the gradients it dumps matching the plain reference, and the
// progress line on a terminal only.
#define BOOST_TEST_MODULE cli_bench
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
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

// bench/peer_record.py, as compare_ort.py and compare_torch.py call it, keeps a comparison in
// XDG_STATE_HOME/qkv/peers.json; qkv bench reads it and reports, for the kernels it runs on this
// CPU, the cases measured and those not. The Python writer and qkv's reader share no code.
BOOST_AUTO_TEST_CASE(bench_reports_what_the_peer_scripts_kept_for_its_kernels) {
    const qkv::test::scratch_dir state("peers");
    const std::vector<std::pair<std::string, std::string>> env{{"XDG_STATE_HOME", state.path.string()}};
    const std::vector<std::string> bench{"bench", "--n", "64", "--impl", "fused", "--repeats", "1"};
    auto json_bench = bench;
    json_bench.insert(json_bench.end(), {"--format", "json"});
    const auto before = run_qkv(json_bench, "", env);
    BOOST_TEST_REQUIRE(before.status == 0, before.err);
    const nlohmann::json none = nlohmann::json::parse(before.out).at("peers");
    const std::string record = (state / "qkv" / "peers.json").string();
    BOOST_TEST(none.at("record") == record);
    BOOST_TEST(none.at("kernels") == nlohmann::json::parse(before.out).at("fused_kernels"));
    BOOST_TEST_REQUIRE(none.at("cases").size() == 8u);
    for (const auto& c : none.at("cases")) BOOST_TEST(c.at("measured").is_null());

    // ONNX Runtime, full, 1 thread, as the script keeps it: this CPU's name as Python reads it
    const std::string kernels = none.at("kernels");
    const std::string script =
        "import sys; sys.path.insert(0, 'bench'); import peer_record as p; "
        "p.add(sys.argv[1], [{'peer': 'onnxruntime', 'peer_version': '1.30.0', 'pass': 'forward', 'attention': 'full', "
        "'threads': 1, 'n': 4096, 'd_model': 512, 'heads': 8, 'kernels': sys.argv[2], 'cpu': p.cpu_name(), "
        "'qkv_ms': 729.0, 'peer_ms': 942.0, 'ratio': 942.0 / 729.0, 'ratio_low': 1.05, 'ratio_high': 1.53, 'rounds': 5, "
        "'when': p.now(), 'command': 'bench/compare_ort.py --rounds 5'}])";
    auto python = [&](const std::string& code, const std::string& out) {
        return std::system(("python3 -c \"" + code + "\" " + record + " " + kernels + " > " + out + " 2>&1").c_str());
    };
    BOOST_TEST_REQUIRE(python(script, (state / "python.out").string()) == 0, qkv::test::read_file((state / "python.out").string()));
    const auto after = run_qkv(json_bench, "", env);
    BOOST_TEST_REQUIRE(after.status == 0, after.err);
    const nlohmann::json measured = nlohmann::json::parse(after.out);  // kept alive: a range-for over a temporary's member dangles
    for (const auto& c : measured.at("peers").at("cases")) {
        const bool mine = c.at("peer") == "onnxruntime" && c.at("attention") == "full" && c.at("threads") == 1;
        BOOST_TEST(c.at("measured").is_null() == !mine, c.dump());
        if (!mine) continue;
        BOOST_TEST(std::fabs(c.at("measured").at("ratio").get<double>() - 942.0 / 729.0) < 1e-12);  // JSON keeps a double's digits
        BOOST_TEST(c.at("ahead") == true);  // 1.29 ≥ 1.15
    }
    const auto text = run_qkv(bench, "", env);
    BOOST_TEST(text.out.find("ONNX Runtime 1.30.0, forward, full, 1 thread: 1.29× (1.05–1.53 over 5 rounds), target 1.15×: ahead") !=
                   std::string::npos, text.out);
    BOOST_TEST(text.out.find("kept in " + record) != std::string::npos, text.out);

    // a record broken on its second line: refused in one line naming it, before anything is timed,
    // and neither qkv nor the script writes over it
    { std::ofstream(record) << "{\"version\": 1,\n \"rows\": [oops\n"; }
    const auto broken = run_qkv(json_bench, "", env);
    BOOST_TEST(broken.status == 2);
    BOOST_TEST(broken.out.empty());
    BOOST_TEST(broken.err.find("qkv: " + record + ":2: ") == 0u, broken.err);
    BOOST_TEST(std::count(broken.err.begin(), broken.err.end(), '\n') == 1);
    BOOST_TEST(python(script, (state / "python.out").string()) != 0);
    BOOST_TEST(qkv::test::read_file((state / "python.out").string()).find("not a record of peer comparisons") != std::string::npos);
    BOOST_TEST(qkv::test::read_file(record) == "{\"version\": 1,\n \"rows\": [oops\n");
}
