// What one run may keep and what one operation may do (keep_budget.hpp, work_budget.hpp): a small
// file that asks for gigabytes or for minutes of arithmetic ends at once, in one line on standard
// error that names the file, the line and the formula, with status 2.
#define BOOST_TEST_MODULE budgets
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <string>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "support/cli_suite.hpp"
#include "support/run_arranged.hpp"

namespace {

std::size_t count_lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The audit's scenario: 16384 tokens of d_model 4. X is only 256 KiB, but every n × n matrix of a
// lesson is 16384² = 2^28 floats = 1 GiB, which the cell limit (2^28) still lets through.
std::string scenario_of(int n) {
    std::string tokens;
    for (int i = 0; i < n; ++i) tokens += fmt::format("{}\"t{}\"", i ? "," : "", i);
    return fmt::format("name = \"big\"\ntokens = [{}]\nheads = 2\n[matrices]\nX = {{ randn = [{}, 4], seed = 1 }}\n"
                       "W_Q = {{ randn = [4, 4], seed = 1 }}\nW_K = {{ randn = [4, 4], seed = 2 }}\n"
                       "W_V = {{ randn = [4, 4], seed = 3 }}\nW_O = {{ randn = [4, 4], seed = 4 }}\n", tokens, n);
}

// A lesson of one stage whose formula is `lines`: its first line is line 7 of the file.
std::string one_stage_lesson(const std::string& lines) {
    return "number = 50\n"                             // 1
           "title = { zh = \"大\", en = \"Big\" }\n"  // 2
           "[[stage]]\n"                               // 3
           "id = \"big\"\n"                            // 4
           "title = { zh = \"大\", en = \"Big\" }\n"  // 5
           "formula = \"\"\"\n"                         // 6
           + lines +                                   // 7, 8, …
           "\n\"\"\"\ntext = { zh = \"大\", en = \"Big\" }\n";
}

// The program under an address-space limit (setrlimit in the child, before exec): its status as
// waitpid gives it, its standard error, and how long it ran. Standard output is thrown away.
struct limited_run {
    int status;
    std::string err;
    double seconds;
};
limited_run run_with_memory_limit(const std::vector<std::string>& args, rlim_t bytes) {
    const auto start = std::chrono::steady_clock::now();
    auto [status, err] = qkv::test::run_arranged(args, [bytes] {
        rlimit lim{bytes, bytes};
        ::setrlimit(RLIMIT_AS, &lim);
        ::dup2(::open("/dev/null", O_WRONLY), 1);
    });
    return {status, err, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

// The line of `file` (counted from 1) that is exactly `text`, or 0.
int line_of(const fs::path& file, const std::string& text) {
    const std::string all = read_file(file);
    int line = 1;
    for (std::size_t at = 0; at < all.size(); ++line) {
        std::size_t end = all.find('\n', at);
        if (end == std::string::npos) end = all.size();
        if (all.compare(at, end - at, text) == 0) return line;
        at = end + 1;
    }
    return 0;
}

constexpr rlim_t gib = rlim_t(1) << 30;

}  // namespace

// Item 1: lesson 13 on 16384 tokens reached 24 GB. Under a 3 GiB address-space limit the run may
// keep half of what is free, under 1.5 GiB. Stage 1 makes S (1 GiB) and then calls softmax(S): the
// workspace holding S counts twice (it, and the trace's copy) and the argument passed, a copy of S,
// is 1 GiB more, 2 + 1 = 3 GiB, so the run stops at A's line before softmax runs, in seconds and
// not by the kernel (nor by a bad_alloc: S, its copy and the program fit in 3 GiB).
BOOST_AUTO_TEST_CASE(a_run_that_would_keep_more_than_the_memory_allows_stops_at_the_formula) {
#if defined(QKV_PROGRAM_HAS_ASAN)
    BOOST_TEST_MESSAGE("built with AddressSanitizer, which needs terabytes of address space: left to the plain build");
    return;
#endif
    qkv::test::scratch_dir dir{"budget-keep"};
    write_file(dir / "big.toml", scenario_of(16384));
    const int line = line_of("lessons/13-tiled-softmax.toml", "A = softmax(S)");
    BOOST_TEST_REQUIRE(line > 0);
    auto r = run_with_memory_limit({"lesson", "13", "--data", (dir / "big.toml").string()}, 3 * gib);
    BOOST_TEST(r.status == 2);
    BOOST_TEST(count_lines(r.err) == 1u, r.err);
    BOOST_TEST(has(r.err, fmt::format("lessons/13-tiled-softmax.toml:{}:", line)), r.err);
    BOOST_TEST(has(r.err, "formula `A = softmax(S)`"), r.err);
    // 2 × 1 GiB (S, twice) + 1 GiB (S passed) + X, the weights and the labels (a few MiB) = 3 GiB
    // and a little, rounded up to a tenth: 3.1
    BOOST_TEST(has(r.err, "this run would keep 3.1 GiB, more than half of the"), r.err);
    BOOST_TEST(has(r.err, "GiB of memory free"), r.err);
    BOOST_TEST(r.seconds < 60.0);
}

// The same for a built-in's recorded steps: kv_decode over 16384 tokens records, at each token t,
// its K and V caches [t, 4] and its weights [1, t], labelled with the t tokens seen: 6.3 GB in all.
// Under a 2 GiB limit the run may keep under 1 GiB, and it stops inside the decode.
BOOST_AUTO_TEST_CASE(recorded_steps_count_against_what_a_run_may_keep) {
#if defined(QKV_PROGRAM_HAS_ASAN)
    BOOST_TEST_MESSAGE("built with AddressSanitizer, which needs terabytes of address space: left to the plain build");
    return;
#endif
    qkv::test::scratch_dir dir{"budget-steps"};
    write_file(dir / "decode.toml", one_stage_lesson("Z = kv_decode(randn(16384, 4, 1), W_Q, W_K, W_V)"));
    auto r = run_with_memory_limit({"run", (dir / "decode.toml").string()}, 2 * gib);
    BOOST_TEST(r.status == 2);
    BOOST_TEST(count_lines(r.err) == 1u, r.err);
    BOOST_TEST(has(r.err, "decode.toml:7:"), r.err);
    BOOST_TEST(has(r.err, "formula `Z = kv_decode(randn(16384, 4, 1), W_Q, W_K, W_V)`: this run would keep"), r.err);
    BOOST_TEST(r.seconds < 60.0);
}

// Item 2: an SVD of 16384 × 16384 is ~4·m·n·r + 8·r³ = 12 · 16384³ = 12 · 4398046511104
// = 52776558133248 flops, 52777 GFLOP, past the 1000 one operation may do: refused before LAPACK
// starts, by run and by validate alike.
BOOST_AUTO_TEST_CASE(an_svd_too_large_to_finish_soon_is_refused_before_it_starts) {
    qkv::test::scratch_dir dir{"budget-svd"};
    write_file(dir / "svd.toml", one_stage_lesson("Y = singular_values(randn(16384, 16384, 1))"));
    const auto start = std::chrono::steady_clock::now();
    auto r = run_qkv({"run", (dir / "svd.toml").string()});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(count_lines(r.err) == 1u, r.err);
    BOOST_TEST(has(r.err, "svd.toml:7:"), r.err);
    BOOST_TEST(has(r.err, "formula `Y = singular_values(randn(16384, 16384, 1))`: singular_values(randn(16384, 16384, 1)) "
                          "would do 52777 GFLOP of arithmetic or more, past the 1000 GFLOP one operation may do"), r.err);
    auto v = run_qkv({"validate", (dir / "svd.toml").string()});
    BOOST_TEST(v.status != 0);
    BOOST_TEST(has(v.err + v.out, "svd.toml:7:"), v.err + v.out);
    BOOST_TEST(has(v.err + v.out, "52777 GFLOP"), v.err + v.out);
    BOOST_TEST(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 120.0);
}

// A chain of products on an 8192 × 8192 Y: the first, Y @ Y, is 2 · 8192³ = 2 · 549755813888
// = 1099511627776 flops, 1100 GFLOP, and is refused; a product of the lessons' size runs. (On a
// 16384 × 16384 Y the run's memory budget speaks first: Y is 1 GiB, kept twice, and Y @ Y 1 GiB more.)
BOOST_AUTO_TEST_CASE(a_product_too_large_to_finish_soon_is_refused_before_it_starts) {
    qkv::test::scratch_dir dir{"budget-product"};
    write_file(dir / "chain.toml", one_stage_lesson("Y = randn(8192, 8192, 1)\nZ = Y @ Y @ Y"));
    auto r = run_qkv({"run", (dir / "chain.toml").string()});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(count_lines(r.err) == 1u, r.err);
    BOOST_TEST(has(r.err, "chain.toml:8:"), r.err);
    BOOST_TEST(has(r.err, "formula `Z = Y @ Y @ Y`: Y @ Y would do 1100 GFLOP of arithmetic or more, past the 1000 GFLOP"), r.err);
    // 512 × 512: 2 · 512³ = 268435456 flops, 0.27 GFLOP, far inside
    write_file(dir / "small.toml", one_stage_lesson("Y = randn(512, 512, 1)\nZ = Y @ Y @ Y"));
    auto ok = run_qkv({"run", (dir / "small.toml").string()});
    BOOST_TEST(ok.status == 0, ok.err);
}

// Issue 43: work in plain loops counts as much as work in BLAS. Each built-in states its flops from
// its arguments' shapes before it runs, and the budget refuses the call before a loop has started:
// - softmax_jacobian_norm of one row of m = 2·10⁶: 4·m² = 1.6·10¹³ flops = 16000 GFLOP;
// - cosine of [16384, 4096] with itself: 2·16384·16384·4096 = 2.2·10¹² (and the rows' lengths);
// - fd_gradient on X [400, 64] for W_Q [64, 64]: every one of the 4096 entries nudged both ways is
//   a loss of 400 rows over 400² pairs, 2·4096·400·(3·400² + 6·400) = 1.58·10¹² flops, and the
//   products in double once.
// Before, each ran for tens of minutes (and `qkv validate` with it).
BOOST_AUTO_TEST_CASE(a_built_in_of_plain_loops_states_its_work_and_is_refused_before_it_runs) {
    qkv::test::scratch_dir dir{"budget-loops"};
    struct refused {
        const char* file;
        std::string formula;
        const char* figure;
    };
    const refused cases[] = {
        {"jacobian.toml", "x = rows(softmax_jacobian_norm(zeros(1, 2000000)))",
         "softmax_jacobian_norm(zeros(1, 2000000)) would do 16000 GFLOP of arithmetic or more, past the 1000 GFLOP"},
        {"cosine.toml", "Y = zeros(16384, 4096)\nx = rows(cosine(Y, Y))", "cosine(Y, Y) would do 2200 GFLOP"},
        {"fd.toml", "X = zeros(400, 64)\nW = zeros(64, 64)\nT = zeros(400, 64)\ng = fd_gradient(X, W, W, W, T, 1, 0.001)",
         "would do 1581 GFLOP"},
    };
    for (const refused& c : cases) {
        write_file(dir / c.file, one_stage_lesson(c.formula));
        const auto start = std::chrono::steady_clock::now();
        auto r = run_qkv({"run", (dir / c.file).string()});
        BOOST_TEST(r.status == 2, c.file);
        BOOST_TEST(count_lines(r.err) == 1u, r.err);
        const std::string last = c.formula.substr(c.formula.rfind('\n') + 1);
        const int line = 7 + int(std::count(c.formula.begin(), c.formula.end(), '\n'));
        BOOST_TEST(has(r.err, fmt::format("{}:{}:", c.file, line)), r.err);
        BOOST_TEST(has(r.err, fmt::format("formula `{}`", last)), r.err);
        BOOST_TEST(has(r.err, c.figure), r.err);
        auto v = run_qkv({"validate", (dir / c.file).string()});
        BOOST_TEST(v.status != 0);
        BOOST_TEST(has(v.out + v.err, c.figure), v.out + v.err);
        BOOST_TEST(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 60.0, c.file);
    }
    // the same built-ins at a lesson's size run as before
    write_file(dir / "small.toml", one_stage_lesson("Y = randn(64, 16, 1)\nc = cosine(Y, Y)\nj = softmax_jacobian_norm(softmax(c))\n"
                                                    "g = fd_gradient(Y, randn(16, 4, 2), randn(16, 4, 3), randn(16, 4, 4), randn(64, 4, 5), 1, 0.001)"));
    auto ok = run_qkv({"run", (dir / "small.toml").string()});
    BOOST_TEST(ok.status == 0, ok.err);
}

// Issue 43: the temporaries of one expression count. Z is 16384² floats = 1 GiB; the workspace holds
// it (twice, with the trace's copy), and Z + (Z + (Z + (Z + Z))) copies it at every level before the
// first sum is made: it peaked at 6 GiB and, under a 4 GiB limit, ended in "qkv: out of memory
// running …" with no file, line or formula. The first copy is refused now, before it is made.
BOOST_AUTO_TEST_CASE(the_temporaries_of_an_expression_count_against_what_a_run_may_keep) {
#if defined(QKV_PROGRAM_HAS_ASAN)
    BOOST_TEST_MESSAGE("built with AddressSanitizer, which needs terabytes of address space: left to the plain build");
    return;
#endif
    qkv::test::scratch_dir dir{"budget-temporaries"};
    write_file(dir / "sum.toml", one_stage_lesson("Z = zeros(16384, 16384)\nx = rows(Z + (Z + (Z + (Z + Z))))"));
    for (rlim_t limit : {4 * gib, rlim_t(RLIM_INFINITY)}) {
        auto r = run_with_memory_limit({"run", (dir / "sum.toml").string()}, limit);
        BOOST_TEST(r.status == 2);
        BOOST_TEST(count_lines(r.err) == 1u, r.err);
        BOOST_TEST(has(r.err, "sum.toml:8:"), r.err);
        BOOST_TEST(has(r.err, "formula `x = rows(Z + (Z + (Z + (Z + Z))))`: this run would keep"), r.err);
        BOOST_TEST(r.seconds < 60.0);
    }
}
