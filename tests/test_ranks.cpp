// Lesson 11 and the tensor-parallel bench on real ranks (mpirun -np 1, 2, 4, oversubscribed), held
// to the one-process run; a number of ranks that does not divide the heads refused; a rank that dies
// or stops ends the whole job within seconds. Skipped, saying so, when qkv was built without MPI.
#define BOOST_TEST_MODULE ranks
#include <chrono>
#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "support/cli_suite.hpp"

namespace tt = boost::unit_test;
using json = nlohmann::json;
using qkv::test::run_result;

namespace {

// QKV_MPIRUN: the mpirun meson found, empty when qkv was built without MPI.
std::string mpirun() {
    const char* m = std::getenv("QKV_MPIRUN");
    return m ? m : "";
}

struct mpi_built {
    boost::test_tools::assertion_result operator()(tt::test_unit_id) const {
        boost::test_tools::assertion_result r(!mpirun().empty());
        r.message() << "skipped: qkv was built without MPI (meson -Dmpi=disabled, or Open MPI not found)";
        return r;
    }
};

struct timed_result {
    run_result r;
    double seconds;
};

// qkv ARGS on P ranks, as root and with more ranks than cores allowed.
timed_result on_ranks(int P, std::vector<std::string> args, const std::vector<std::pair<std::string, std::string>>& env = {}) {
    const std::string qkv = std::getenv("QKV_BIN");
    std::vector<std::string> all{"--oversubscribe", "--allow-run-as-root", "-np", std::to_string(P), qkv};
    all.insert(all.end(), args.begin(), args.end());
    // under AddressSanitizer, full stacks: Open MPI's own leaks (.ci/lsan.supp) are known by its libraries
    std::vector<std::pair<std::string, std::string>> with = env;
    if (const char* asan = std::getenv("ASAN_OPTIONS")) with.emplace_back("ASAN_OPTIONS", std::string(asan) + ":fast_unwind_on_malloc=0");
    setenv("QKV_BIN", mpirun().c_str(), 1);  // run_qkv starts QKV_BIN: here mpirun, which starts qkv
    const auto t0 = std::chrono::steady_clock::now();
    run_result r = run_qkv(all, "", with);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    setenv("QKV_BIN", qkv.c_str(), 1);
    return {std::move(r), s};
}

// The output values of a lesson's JSON trace by name (the last stage that shows a name wins).
std::map<std::string, json> outputs(const std::string& text) {
    std::map<std::string, json> out;
    const json trace = json::parse(text);
    for (const json& s : trace["stages"])
        for (const json& v : s["values"]) out[v["name"].get<std::string>() + "@" + s["id"].get<std::string>()] = v;
    return out;
}

std::vector<double> flat(const json& data) {
    std::vector<double> out;
    if (data.is_number()) out.push_back(data.get<double>());
    else
        for (const json& x : data)
            for (double y : flat(x)) out.push_back(y);
    return out;
}

// The traffic table a stage shows (gathered, reduced): a row per rank.
json traffic(const std::string& text, const std::string& stage) {
    const json trace = json::parse(text);
    for (const json& s : trace["stages"])
        if (s["id"] == stage)
            for (const json& v : s.at("values"))
                if (v["name"] == (stage == "gather" ? "gathered" : "reduced")) return v;
    return {};
}

const std::vector<std::string> four_heads{"--tokens", "a b c d e", "--heads", "4", "--d-model", "8"};

// Every value lesson 11 shows on P ranks against the one-process run. The tolerance: the
// all-reduce adds each rank's float32 partial sums in an order of MPI's choosing, so an entry of Z
// (of order 1 here, a sum of h terms) may move by a few units of float32's 1.2e-07; 1e-5 allows that
// and catches any part put in the wrong place, which moves an entry by the size of the entries.
void expect_lesson_as_one_process(int P, const std::vector<std::string>& scenario) {
    std::vector<std::string> args{"lesson", "11", "--format", "json", "--lang", "en"};
    args.insert(args.end(), scenario.begin(), scenario.end());
    const run_result one = run_qkv(args);
    BOOST_TEST_REQUIRE(one.status == 0, one.err);
    const timed_result many = on_ranks(P, args);
    BOOST_TEST_REQUIRE(many.r.status == 0, many.r.err);
    const auto a = outputs(one.out), b = outputs(many.r.out);
    for (const char* name : {"Y_gathered@gather", "Z_parallel@all-reduce", "difference@all-reduce", "Y@whole"}) {
        BOOST_TEST_REQUIRE(a.count(name) == 1u, name);
        BOOST_TEST_REQUIRE(b.count(name) == 1u, name);
        const auto x = flat(a.at(name)["data"]), y = flat(b.at(name)["data"]);
        BOOST_TEST_REQUIRE(x.size() == y.size(), name);
        for (std::size_t i = 0; i < x.size(); ++i) BOOST_TEST(std::abs(x[i] - y[i]) <= 1e-5, name << "[" << i << "]: " << x[i] << " vs " << y[i]);
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(lesson_11_on_one_two_and_four_ranks_gives_the_one_process_numbers, *tt::precondition(mpi_built())) {
    expect_lesson_as_one_process(1, {});
    expect_lesson_as_one_process(2, {});
    expect_lesson_as_one_process(2, four_heads);
    expect_lesson_as_one_process(4, four_heads);
}

BOOST_AUTO_TEST_CASE(the_messages_are_counted_as_sent, *tt::precondition(mpi_built())) {
    // 苹果很甜: n = 3, d_model = 4, h = 2, on 2 ranks: each holds one [4, 2] part of W_Q (8 numbers),
    // computes its [3, 2] part of Y (6) and sends it to the other rank: 6 floats = 24 bytes each way.
    const timed_result two = on_ranks(2, {"lesson", "11", "--format", "json"});
    BOOST_TEST_REQUIRE(two.r.status == 0, two.r.err);
    const json gather = traffic(two.r.out, "gather");
    BOOST_TEST_REQUIRE(gather["data"].size() == 2u);
    for (const json& row : gather["data"]) {
        BOOST_TEST(row[0].get<double>() == 8.0);   // held
        BOOST_TEST(row[1].get<double>() == 6.0);   // computed
        BOOST_TEST(row[4].get<double>() == 24.0);  // bytes sent
        BOOST_TEST(row[5].get<double>() == 24.0);  // bytes received
        BOOST_TEST(row[6].get<double>() > 0.0);    // ms: it took some time
    }
    // the all-reduce on 4 ranks of 5 tokens, d_model = 8, 4 heads: each rank holds one head's
    // [8, 2] of W_Q, W_K, W_V and [2, 8] of W_O (4 · 16 = 64 numbers) and hands over its
    // [5, 8] partial sum: 40 floats = 160 bytes, and gets 160 bytes of the total back.
    std::vector<std::string> args{"lesson", "11", "--format", "json"};
    args.insert(args.end(), four_heads.begin(), four_heads.end());
    const timed_result four = on_ranks(4, args);
    BOOST_TEST_REQUIRE(four.r.status == 0, four.r.err);
    const json reduce = traffic(four.r.out, "all-reduce");
    BOOST_TEST_REQUIRE(reduce["data"].size() == 4u);
    for (const json& row : reduce["data"]) {
        BOOST_TEST(row[0].get<double>() == 64.0);
        BOOST_TEST(row[4].get<double>() == 160.0);
        BOOST_TEST(row[5].get<double>() == 160.0);
    }
    // in one process nothing is sent, and the table has the one row; no stage records a step
    const run_result one = run_qkv({"lesson", "11", "--format", "json"});
    const json trace = json::parse(one.out);
    for (const json& s : trace["stages"]) BOOST_TEST(!s.contains("steps"));
    BOOST_TEST(traffic(one.out, "gather")["data"].size() == 1u);
}

BOOST_AUTO_TEST_CASE(ranks_that_do_not_divide_the_heads_are_refused_in_one_line, *tt::precondition(mpi_built())) {
    const timed_result r = on_ranks(3, {"lesson", "11"});  // 苹果很甜 has 2 heads
    BOOST_TEST(r.r.status == 2);
    const std::string line = "3 ranks cannot share the 2 parts";
    const auto at = r.r.err.find(line);
    BOOST_TEST(at != std::string::npos, r.r.err);
    BOOST_TEST(r.r.err.find(line, at + 1) == std::string::npos, "said once, by rank 0: " << r.r.err);
    BOOST_TEST(r.r.out.empty());
    const timed_result b = on_ranks(3, {"bench", "--tensor-parallel", "--n", "64", "--d-model", "64"});
    BOOST_TEST(b.r.status == 2);
    BOOST_TEST(b.r.err.find("3 ranks do not divide the 8 heads") != std::string::npos, b.r.err);
}

BOOST_AUTO_TEST_CASE(a_rank_that_dies_ends_the_job_within_seconds, *tt::precondition(mpi_built())) {
    // rank 1 is killed (SIGKILL) at its first collective; rank 0 is left waiting in it
    const timed_result r = on_ranks(2, {"lesson", "11"}, {{"QKV_TEST_RANK_DIES", "1"}});
    BOOST_TEST(r.r.status != 0);
    BOOST_TEST(r.seconds < 20.0);
}

BOOST_AUTO_TEST_CASE(a_rank_that_stops_ends_the_job_at_the_timeout, *tt::precondition(mpi_built())) {
    // rank 1 stops for good at its first collective; rank 0 gives up after QKV_RANK_TIMEOUT = 2 s
    const timed_result r = on_ranks(2, {"lesson", "11"}, {{"QKV_TEST_RANK_HANGS", "1"}, {"QKV_RANK_TIMEOUT", "2"}});
    BOOST_TEST(r.r.status == 2);
    BOOST_TEST(r.r.err.find("rank 0 of 2: the all-gather waited 2 s") != std::string::npos, r.r.err);
    BOOST_TEST(r.seconds < 30.0);
}

BOOST_AUTO_TEST_CASE(the_tensor_parallel_bench_splits_the_heads_and_keeps_z, *tt::precondition(mpi_built())) {
    // n = 256, d_model = 64, 8 heads: each rank's all-reduce message is its [256, 64] partial sum,
    // 256 · 64 · 4 = 65536 bytes. Z on the ranks is the same sum of 8 heads' float32 products in
    // another order: within 1e-4 of one rank's (entries of order 1, a few hundred terms each).
    for (int P : {1, 2, 4}) {
        const timed_result r = on_ranks(P, {"bench", "--tensor-parallel", "--n", "256", "--d-model", "64", "--repeats", "1", "--format", "json"});
        BOOST_TEST_REQUIRE(r.r.status == 0, r.r.err);
        const json j = json::parse(r.r.out);
        BOOST_TEST(j["ranks"].get<int>() == P);
        BOOST_TEST_REQUIRE(j["per_rank"].size() == std::size_t(P));
        for (const json& q : j["per_rank"]) {
            BOOST_TEST(q["heads"].get<int>() == 8 / P);
            BOOST_TEST(q["bytes_sent"].get<double>() == (P > 1 ? 65536.0 : 0.0));
            BOOST_TEST(q["compute_ms"].get<double>() > 0.0);
        }
        BOOST_TEST(j["max_difference"].get<double>() <= 1e-4);
        BOOST_TEST(j["speed_up"].get<double>() > 0.0);
        BOOST_TEST(std::abs(j["efficiency"].get<double>() * P - j["speed_up"].get<double>()) < 1e-9);
    }
}

BOOST_AUTO_TEST_CASE(without_mpirun_the_bench_says_how_to_run_on_ranks) {
    const run_result r = run_qkv({"bench", "--tensor-parallel", "--n", "64", "--d-model", "64", "--repeats", "1", "--lang", "en"});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    BOOST_TEST(r.out.find("P = 1 rank (1 thread each)") != std::string::npos, r.out);
    BOOST_TEST(r.out.find("On real ranks: mpirun -np 2 qkv bench --tensor-parallel") != std::string::npos, r.out);
}

// Issue 43: `mpirun -np 2 qkv check 3.2 0.25` recorded two attempts for one check. Only rank 0
// records; the other rank says the same verdict and leaves the progress file alone.
BOOST_AUTO_TEST_CASE(a_check_on_two_ranks_records_one_attempt, *tt::precondition(mpi_built())) {
    qkv::test::scratch_dir dir{"ranks-check"};
    const auto r = on_ranks(2, {"check", "3.2", "0.25"}, {{"XDG_STATE_HOME", dir.path.string()}});
    BOOST_TEST((r.r.status == 0 || r.r.status == 1), r.r.err);
    const json progress = json::parse(qkv::test::read_file(dir / "qkv" / "progress.json"));
    BOOST_TEST(progress.dump().find("\"attempts\":1") != std::string::npos, progress.dump());
}
