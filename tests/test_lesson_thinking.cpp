// Lesson 15 ("Thinking Machines" at d_model = 512, 8 heads of d_k = 64) held against plain loops:
// one head's columns of W_Q and W_K, a score summed term by term, the division by exactly 8,
// softmax rows, every head's output recomputed by the reference kernels and found side by side in
// the concatenation, W_O, and the numbers the text quotes.
#define BOOST_TEST_MODULE lesson_thinking
#include <boost/test/unit_test.hpp>

#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "support/lesson_suite.hpp"

namespace {

constexpr int lesson_number = 15;
constexpr std::size_t d_model = 512, heads = 8, d_k = 64, tokens = 2;

const qkv::value& ws_value(const qkv::lesson_run& r, const std::string& name) {
    auto it = r.ws.find(name);
    BOOST_TEST_REQUIRE((it != r.ws.end()), "workspace lacks " << name);
    return it->second;
}
const matrix& ws_mat(const qkv::lesson_run& r, const std::string& name) {
    const qkv::value& v = ws_value(r, name);
    BOOST_TEST_REQUIRE(v.is_matrix(), name << " is not a matrix");
    return v.mat();
}

// Columns from .. from + count - 1 of m: [rows, count], as head `from / count` takes them.
matrix cols_of(const matrix& m, std::size_t from, std::size_t count) {
    matrix out(m.rows, count);
    for (std::size_t r = 0; r < m.rows; ++r)
        for (std::size_t c = 0; c < count; ++c) out(r, c) = m(r, from + c);
    return out;
}

// Head hd's output softmax(Q K^T / sqrt(d_k)) V from X and that head's columns of the weights.
matrix head_output(const qkv::workspace& ws, std::size_t hd) {
    const matrix& X = ws.at("X").mat();
    auto project = [&](const char* W) { return kernels::matmul_ref(X, cols_of(ws.at(W).mat(), hd * d_k, d_k)); };
    matrix Q = project("W_Q"), K = project("W_K"), V = project("W_V");
    matrix S = scaled(kernels::matmul_ref(Q, kernels::transpose(K)), 1.0f / std::sqrt(float(d_k)));
    return kernels::matmul_ref(kernels::softmax_rows(S), V);
}

bool says(const qkv::lesson_run& r, const std::string& stage, const std::string& what) {
    return stage_of(r.t, stage).text.find(what) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_scenario_has_the_articles_sizes) {
    auto r = run(lesson_number, thinking_file);
    BOOST_TEST(ws_mat(r, "X").rows == tokens);
    BOOST_TEST(ws_mat(r, "X").cols == d_model);
    BOOST_TEST(ws_value(r, "h").number == float(heads));
    BOOST_TEST(ws_value(r, "d_k").number == float(d_k));  // 512 / 8
    BOOST_TEST(r.t.stages.size() >= 8u);
}

BOOST_AUTO_TEST_CASE(one_heads_weights_are_its_columns_and_a_score_is_a_sum_of_64_terms) {
    auto r = run(lesson_number, thinking_file);
    const matrix &X = ws_mat(r, "X"), &W_Q = ws_mat(r, "W_Q"), &W_K = ws_mat(r, "W_K");
    // W_Q_1: [512, 64], columns 1..64 of W_Q exactly (a copy, no arithmetic)
    const matrix& W_Q_1 = ws_mat(r, "W_Q_1");
    BOOST_TEST_REQUIRE(W_Q_1.rows == d_model);
    BOOST_TEST_REQUIRE(W_Q_1.cols == d_k);
    check_close(W_Q_1, cols_of(W_Q, 0, d_k), 0.0f, "W_Q_1");
    // Q_1 and K_1: [2, 64]
    check_close(ws_mat(r, "Q_1"), kernels::matmul_ref(X, cols_of(W_Q, 0, d_k)), 1e-4f, "Q_1");
    check_close(ws_mat(r, "K_1"), kernels::matmul_ref(X, cols_of(W_K, 0, d_k)), 1e-4f, "K_1");
    // s_12 of head 1 by a plain loop: q = x_1 W_Q[:, c], k = x_2 W_K[:, c], s = sum over the 64 c of q k
    double s12 = 0;
    for (std::size_t c = 0; c < d_k; ++c) {
        double q = 0, k = 0;
        for (std::size_t i = 0; i < d_model; ++i) {
            q += double(X(0, i)) * W_Q(i, c);
            k += double(X(1, i)) * W_K(i, c);
        }
        s12 += q * k;
    }
    const matrix& S_1 = ws_mat(r, "S_1");
    BOOST_TEST_REQUIRE(S_1.rows == tokens);
    BOOST_TEST_REQUIRE(S_1.cols == tokens);
    BOOST_TEST(S_1(0, 1) == float(s12), tt::tolerance(1e-4f));
    // the text quotes that score as it was computed (two decimals)
    BOOST_TEST(says(r, "scores", fmt::format("{:.2f}", s12)), stage_of(r.t, "scores").text);
}

BOOST_AUTO_TEST_CASE(the_scores_are_scaled_by_exactly_8_and_their_variance_is_about_64) {
    auto r = run(lesson_number, thinking_file);
    const matrix &S_1 = ws_mat(r, "S_1"), &S_scaled = ws_mat(r, "S_1_scaled");
    // sqrt(64) = 8 is exact in float, and so is dividing by a power of two: equal bit for bit
    for (std::size_t i = 0; i < S_1.size(); ++i) BOOST_TEST(S_scaled.data[i] == S_1.data[i] / 8.0f);
    BOOST_TEST(stage_of(r.t, "scaled").title == "Divide by √64 = 8");
    // the 32 unscaled scores of the 8 heads: variance near d_k = 64 (32 samples of a variance-64
    // quantity: the estimate's own spread is about 64·sqrt(2/32) = 16, hence the wide band)
    const qkv::value& S_all = ws_value(r, "S_all");
    BOOST_TEST_REQUIRE(S_all.is_stack());
    BOOST_TEST_REQUIRE(S_all.mats.size() == heads);
    double sum = 0, sum2 = 0, count = 0;
    for (const matrix& m : S_all.mats)
        for (float x : m.data) sum += x, sum2 += double(x) * x, ++count;
    const double var = sum2 / count - (sum / count) * (sum / count);
    BOOST_TEST(count == double(heads * tokens * tokens));
    BOOST_TEST(var > 32.0);
    BOOST_TEST(var < 128.0);
    BOOST_TEST(says(r, "scores", fmt::format("{:.2f}", var)), stage_of(r.t, "scores").text);
}

BOOST_AUTO_TEST_CASE(softmax_rows_sum_to_one_and_match_the_reference) {
    auto r = run(lesson_number, thinking_file);
    const matrix& A_1 = ws_mat(r, "A_1");
    check_close(A_1, kernels::softmax_rows(ws_mat(r, "S_1_scaled")), 1e-6f, "A_1");
    for (std::size_t i = 0; i < A_1.rows; ++i) {
        double row = 0;
        for (std::size_t j = 0; j < A_1.cols; ++j) row += A_1(i, j);
        BOOST_TEST(row == 1.0, tt::tolerance(1e-6));
    }
}

BOOST_AUTO_TEST_CASE(the_concatenation_is_the_heads_side_by_side_then_W_O) {
    auto r = run(lesson_number, thinking_file);
    const matrix& Z_cat = ws_mat(r, "Z_cat");
    BOOST_TEST_REQUIRE(Z_cat.rows == tokens);
    BOOST_TEST_REQUIRE(Z_cat.cols == d_model);  // 8 × 64 = 512
    const qkv::value& Z_h = ws_value(r, "Z_h");
    BOOST_TEST_REQUIRE(Z_h.is_stack());
    BOOST_TEST_REQUIRE(Z_h.mats.size() == heads);
    for (std::size_t hd = 0; hd < heads; ++hd) {
        BOOST_TEST_CONTEXT("head " << hd + 1) {
            // the lesson's own head output sits in columns hd·64 .. hd·64 + 63, unchanged
            check_close(cols_of(Z_cat, hd * d_k, d_k), Z_h.mats[hd], 0.0f, "Z_cat block");
            // and it is what the reference kernels compute from X and the head's columns
            check_close(Z_h.mats[hd], head_output(r.ws, hd), 1e-4f, "Z_h");
        }
    }
    check_close(ws_mat(r, "Z_1"), Z_h.mats[0], 0.0f, "Z_1");
    const matrix& Z = ws_mat(r, "Z");
    BOOST_TEST(Z.rows == tokens);
    BOOST_TEST(Z.cols == d_model);
    BOOST_TEST(rel_diff(Z, kernels::matmul_ref(Z_cat, ws_mat(r, "W_O"))) < 1e-5f);
    BOOST_TEST(says(r, "concat", "Z_cat is [2, 512]"), stage_of(r.t, "concat").text);
}

BOOST_AUTO_TEST_CASE(the_lesson_runs_on_the_other_scenarios_in_both_languages) {
    // d_model = 4 and 2 heads there: the text quotes that run, so it must still fill in
    for (const char* data : {apple_file, translation_file})
        for (qkv::lang l : {qkv::lang::zh, qkv::lang::en}) {
            BOOST_TEST_CONTEXT(data) {
                auto r = run(lesson_number, data, l);
                BOOST_TEST(ws_value(r, "d_k").number == 2.0f);
                for (const auto& s : r.t.stages) {
                    BOOST_TEST(!s.text.empty());
                    for (const auto& v : s.values) BOOST_TEST(v.v.all_finite(), s.id << ": " << v.name);
                }
            }
        }
}

namespace {

// The places after the point of a number as written: "0.9786" has 4, "64" none.
int places(const std::string& number) {
    auto dot = number.find('.');
    return dot == std::string::npos ? 0 : int(number.size() - dot - 1);
}

// Every "a × b × c = d" or "… ≈ d" a text writes out: its factors as written, the sign, the result.
struct written_product {
    std::vector<std::string> factors;
    std::string sign, result;
};
std::vector<written_product> written_products(const std::string& text) {
    static const std::regex chain(R"((\d+(?:\.\d+)?(?:\s+×\s+\d+(?:\.\d+)?)+)\s+(=|≈)\s+(\d+(?:\.\d+)?))");
    static const std::regex number(R"(\d+(?:\.\d+)?)");
    std::vector<written_product> out;
    for (std::sregex_iterator m(text.begin(), text.end(), chain), end; m != end; ++m) {
        written_product p{{}, (*m)[2], (*m)[3]};
        const std::string factors = (*m)[1];
        for (std::sregex_iterator f(factors.begin(), factors.end(), number); f != end; ++f) p.factors.push_back(f->str());
        out.push_back(p);
    }
    return out;
}

// Population variance of every entry, by hand.
double variance(const matrix& m) {
    double mean = 0, sq = 0;
    for (float x : m.data) mean += x;
    mean /= double(m.data.size());
    for (float x : m.data) sq += (x - mean) * (x - mean);
    return sq / double(m.data.size());
}

}  // namespace

// Issue 40: "64 × 0.98 × 0.98 = 61.66" was printed, and that product is 61.47. Written arithmetic
// comes out: with "=", the written factors multiply to the written result (to its places); with
// "≈", the result is the exact product (recomputed here from X and the weights) and the written
// factors miss it by no more than their own rounding can.
BOOST_AUTO_TEST_CASE(written_arithmetic_comes_out) {
    for (qkv::lang l : {qkv::lang::en, qkv::lang::zh}) {
        auto r = run(lesson_number, thinking_file, l);
        const matrix& X = ws_mat(r, "X");
        const double exact_scores = double(d_k) * variance(kernels::matmul_ref(X, ws_mat(r, "W_Q"))) *
                                    variance(kernels::matmul_ref(X, ws_mat(r, "W_K")));
        std::size_t seen = 0;
        for (const char* id : {"one-head", "scores"}) {
            for (const written_product& p : written_products(stage_of(r.t, id).text)) {
                BOOST_TEST_CONTEXT(id << ": " << fmt::format("{} {} {}", fmt::join(p.factors, " × "), p.sign, p.result)) {
                    ++seen;
                    double product = 1, slack = 0;
                    for (std::size_t i = 0; i < p.factors.size(); ++i) {
                        double others = 1;
                        for (std::size_t j = 0; j < p.factors.size(); ++j)
                            if (j != i) others *= std::stod(p.factors[j]);
                        product *= std::stod(p.factors[i]);
                        slack += 0.5 * std::pow(10.0, -places(p.factors[i])) * std::abs(others) * 1.01;
                    }
                    const double result = std::stod(p.result), half_place = 0.5 * std::pow(10.0, -places(p.result));
                    if (p.sign == "=") BOOST_TEST(std::abs(product - result) <= half_place + 1e-9, "written product " << product);
                    else BOOST_TEST(std::abs(product - result) <= half_place + slack, "written product " << product);
                    if (std::string(id) == "scores") BOOST_TEST(std::abs(exact_scores - result) <= half_place + 1e-6, "exact " << exact_scores);
                }
            }
        }
        BOOST_TEST(seen == 2u, "one product in each of the two stages, not " << seen);
    }
}
