// The built-in functions: each against arithmetic done by hand (in the comments) or against the
// plain kernels, on matrices and head by head on stacks; and the messages for bad arguments.
#define BOOST_TEST_MODULE builtins
#include <cmath>
#include <boost/test/unit_test.hpp>

#include <set>

#include "support/formula_suite.hpp"

namespace {

const float inf = std::numeric_limits<float>::infinity();

const float ln2 = std::log(2.0f), ln3 = std::log(3.0f);

workspace ws_of(std::initializer_list<std::pair<const std::string, value>> items) {
    return workspace(items);
}

}  // namespace

BOOST_AUTO_TEST_CASE(table_is_complete_and_consistent) {
    std::set<std::string> names;
    for (const builtin& b : builtins()) {
        BOOST_TEST(names.insert(b.name).second, "duplicate " << b.name);
        BOOST_TEST(b.signature.rfind(b.name + "(", 0) == 0u, b.signature);
        BOOST_TEST(!b.help.empty(), b.name);
        BOOST_TEST(b.min_args <= b.max_args);
        BOOST_TEST(find_builtin(b.name) == &b);
    }
    for (const char* n : {"softmax", "softmax_naive", "softmax_cols", "exp", "sqrt", "log", "abs",
                          "causal_mask", "cosine", "row_sums", "row_max", "split_heads",
                          "split_rows", "concat_heads", "sum_heads", "mean_heads", "batch", "randn", "rand",
                          "rowdot", "var", "mean", "max", "min", "max_abs_diff", "float_diff", "rows", "cols",
                          "softmax_jacobian_norm", "uniform", "zeros", "identity"})
        BOOST_TEST(find_builtin(n) != nullptr, n);
    BOOST_TEST(find_builtin("nope") == nullptr);
}

BOOST_AUTO_TEST_CASE(formula_error_prefixes_stage_and_statement) {
    eval_context ctx;
    ctx.where = {"l.toml", 3, 9};
    ctx.stage_id = "scores";
    ctx.statement_text = "S = Q @ K";
    try {
        formula_error(ctx, "bad");
    } catch (const input_error& e) {
        BOOST_TEST(e.what() == std::string("l.toml:3:9: stage 'scores', formula `S = Q @ K`: bad"));
        BOOST_TEST(e.message() == "stage 'scores', formula `S = Q @ K`: bad");
    }
    eval_context bare;
    bare.where = {"x", 1, 1};
    bare.statement_text = "y = 2";
    BOOST_CHECK_EXCEPTION(formula_error(bare, "bad"), input_error, [](const input_error& e) {
        return e.what() == std::string("x:1:1: formula `y = 2`: bad");
    });
}

// ---------------------------------------------------------------------------------------------
// Softmax family

BOOST_AUTO_TEST_CASE(softmax_rows_and_weights_flag) {
    // Row [0, 0] -> [1/2, 1/2]; row [0, ln 3] -> [1, 3] / 4 = [0.25, 0.75].
    auto ws = ws_of({{"S", value::of(matrix::of({{0, 0}, {0, ln3}}), {{"a", "b"}, "queries"})}});
    value A = ev("softmax(S)", ws);
    check_close(A.mat(), matrix::of({{0.5f, 0.5f}, {0.25f, 0.75f}}));
    BOOST_TEST(A.weights);
    BOOST_TEST(A.rows.names == (std::vector<std::string>{"a", "b"}));
    // With a mask: the -inf entry becomes exactly 0: row [ln 3, -inf] -> [1, 0].
    check_close(ev("softmax(S + causal_mask(2))", ws).mat(), matrix::of({{1, 0}, {0.25f, 0.75f}}));
}

BOOST_AUTO_TEST_CASE(softmax_head_by_head) {
    auto ws = ws_of({{"S", value::stack({matrix::of({{0, ln3}}), matrix::of({{ln2, 0}})})}});
    value A = ev("softmax(S)", ws);
    BOOST_TEST_REQUIRE(A.is_stack());
    check_close(A.mats[0], matrix::of({{0.25f, 0.75f}}));
    check_close(A.mats[1], matrix::of({{2.0f / 3, 1.0f / 3}}));  // [2, 1] / 3
    BOOST_TEST(A.weights);
}

BOOST_AUTO_TEST_CASE(softmax_naive_overflows) {
    auto ws = ws_of({{"S", value::of(matrix::of({{0, ln3}}))},
                    {"L", value::of(matrix::of({{1000, 0}}))}});
    value A = ev("softmax_naive(S)", ws);
    check_close(A.mat(), matrix::of({{0.25f, 0.75f}}));
    BOOST_TEST(A.weights);
    // exp(1000) is inf in float: inf / inf is NaN, the failure lesson 5 shows.
    BOOST_TEST(!ev("softmax_naive(L)", ws).all_finite());
    BOOST_TEST(ev("softmax(L)", ws).all_finite());
}

BOOST_AUTO_TEST_CASE(softmax_down_columns) {
    // Column 1 [0, ln 3] -> [0.25, 0.75]; column 2 [0, 0] -> [0.5, 0.5].
    auto ws = ws_of({{"S", value::of(matrix::of({{0, 0}, {ln3, 0}}))}});
    value A = ev("softmax_cols(S)", ws);
    check_close(A.mat(), matrix::of({{0.25f, 0.5f}, {0.75f, 0.5f}}));
    BOOST_TEST(!A.weights);  // its rows are not distributions
}

BOOST_AUTO_TEST_CASE(softmax_refuses_a_scalar) {
    BOOST_TEST(contains(eval_error("softmax(2)"),
                        "softmax: S must be a matrix or a stack of heads, got a scalar"));
}

// ---------------------------------------------------------------------------------------------
// Entry-wise functions

BOOST_AUTO_TEST_CASE(entrywise_on_scalars_matrices_and_stacks) {
    BOOST_TEST(ev("exp(1)").number == std::exp(1.0f));
    BOOST_TEST(ev("sqrt(16)").number == 4.0f);
    BOOST_TEST(ev("log(1)").number == 0.0f);
    BOOST_TEST(ev("abs(-2.5)").number == 2.5f);
    BOOST_TEST(ev("ceil((6 - 1) / 2)").number == 3.0f);  // lesson 0: a window of 3 reaches 6 tokens in 3 layers, not 2.5
    BOOST_TEST(ev("ceil(4)").number == 4.0f);
    BOOST_TEST(ev("ceil(-0.5)").number == 0.0f);
    auto ws = ws_of({{"M", value::of(matrix::of({{0, ln2}, {9, 16}}))},
                     {"N", value::of(matrix::of({{-1.5f, 2}}))},
                     {"H", value::stack({matrix::of({{4}}), matrix::of({{25}})})}});
    check_close(ev("exp(M[1])", ws).mat(), matrix::of({{1, 2}}));  // e^0, e^(ln 2)
    check_close(ev("sqrt(M)", ws).mat(), matrix::of({{0, std::sqrt(ln2)}, {3, 4}}));
    check_close(ev("log(exp(M))", ws).mat(), matrix::of({{0, ln2}, {9, 16}}));
    check_close(ev("abs(N)", ws).mat(), matrix::of({{1.5f, 2}}));
    value h = ev("sqrt(H)", ws);
    BOOST_TEST_REQUIRE(h.is_stack());
    BOOST_TEST(h.mats[0](0, 0) == 2.0f);
    BOOST_TEST(h.mats[1](0, 0) == 5.0f);
    BOOST_TEST(std::isnan(ev("sqrt(-1)").number));  // computed, not refused
}

BOOST_AUTO_TEST_CASE(causal_mask_shape_and_values) {
    value m = ev("causal_mask(3)");
    check_close(m.mat(), matrix::of({{0, -inf, -inf}, {0, 0, -inf}, {0, 0, 0}}));
    BOOST_TEST(m.rows.axis == "queries");
    BOOST_TEST(m.cols.axis == "keys");
    BOOST_TEST(contains(eval_error("causal_mask(1.5)"),
                        "causal_mask: n must be a non-negative whole number, got 1.5"));
    // Added to a stack, it reaches every head through broadcasting.
    auto ws = ws_of({{"S", value::stack({matrix(2, 2, 1.0f), matrix(2, 2, 2.0f)})}});
    value masked = ev("S + causal_mask(2)", ws);
    check_close(masked.mats[1], matrix::of({{2, -inf}, {2, 2}}));
}

// ---------------------------------------------------------------------------------------------
// Row-wise functions

BOOST_AUTO_TEST_CASE(cosine_of_rows) {
    // A rows (1, 0), (1, 1); B rows (0, 2), (3, 0).
    // cos((1,0),(0,2)) = 0; cos((1,0),(3,0)) = 1; cos((1,1),(0,2)) = 2 / (sqrt2 * 2) = 0.70711;
    // cos((1,1),(3,0)) = 3 / (sqrt2 * 3) = 0.70711.
    auto ws = ws_of({{"A", value::of(matrix::of({{1, 0}, {1, 1}}), {{"a1", "a2"}, "tokens"})},
                     {"B", value::of(matrix::of({{0, 2}, {3, 0}}), {{"b1", "b2"}, "tokens"})},
                     {"C", value::of(matrix(2, 3))}});
    value c = ev("cosine(A, B)", ws);
    const float r = 1.0f / std::sqrt(2.0f);
    check_close(c.mat(), matrix::of({{0, 1}, {r, r}}));
    BOOST_TEST(c.rows.names == (std::vector<std::string>{"a1", "a2"}));
    BOOST_TEST(c.cols.names == (std::vector<std::string>{"b1", "b2"}));  // B's rows become columns
    BOOST_TEST(contains(eval_error("cosine(A, C)", ws),
                        "the first argument is [2, 2], the second is [2, 3]"));
}

BOOST_AUTO_TEST_CASE(row_sums_row_max_rowdot) {
    auto ws = ws_of({{"A", value::of(matrix::of({{1, 2}, {3, 4}}), {{"x", "y"}, "tokens"},
                                     {{}, "keys"})},
                     {"B", value::of(matrix::of({{5, 6}, {7, 8}}))},
                     {"N", value::of(matrix::of({{-1, -5}}))},
                     {"C", value::of(matrix(3, 2))}});
    value s = ev("row_sums(A)", ws);
    check_close(s.mat(), matrix::of({{3}, {7}}));            // 1+2, 3+4
    BOOST_TEST(s.rows.names == (std::vector<std::string>{"x", "y"}));
    BOOST_TEST(s.cols.axis.empty());
    check_close(ev("row_max(A)", ws).mat(), matrix::of({{2}, {4}}));
    check_close(ev("row_max(N)", ws).mat(), matrix::of({{-1}}));
    check_close(ev("rowdot(A, B)", ws).mat(), matrix::of({{17}, {53}}));  // 1*5+2*6, 3*7+4*8
    BOOST_TEST(contains(eval_error("rowdot(A, C)", ws),
                        "the first argument is [2, 2], the second is [3, 2]"));
    // A softmax's rows sum to 1.
    check_close(ev("row_sums(softmax(B))", ws).mat(), matrix::of({{1}, {1}}));
}

BOOST_AUTO_TEST_CASE(softmax_jacobian_norm_of_rows) {
    // p = (1/2, 1/2): J = [[1/4, -1/4], [-1/4, 1/4]], ||J||_F = sqrt(4 / 16) = 0.5.
    // p = (1, 0): J = [[1 - 1, 0], [0, 0]] = 0.
    auto ws = ws_of({{"P", value::of(matrix::of({{0.5f, 0.5f}, {1, 0}}))}});
    check_close(ev("softmax_jacobian_norm(P)", ws).mat(), matrix::of({{0.5f}, {0}}));
}

// ---------------------------------------------------------------------------------------------
// Heads

BOOST_AUTO_TEST_CASE(split_heads_takes_column_blocks) {
    auto ws = ws_of({{"M", value::of(matrix::of({{1, 2, 3, 4},
                    {5, 6, 7, 8}}), {{"a", "b"}, "tokens"})}});
    value s = ev("split_heads(M, 2)", ws);
    BOOST_TEST_REQUIRE(s.is_stack());
    BOOST_TEST(s.shape_str() == "[2, 2, 2]");
    check_close(s.mats[0], matrix::of({{1, 2}, {5, 6}}));  // columns 1-2
    check_close(s.mats[1], matrix::of({{3, 4}, {7, 8}}));  // columns 3-4
    BOOST_TEST(s.rows.names == (std::vector<std::string>{"a", "b"}));
    check_close(ev("concat_heads(split_heads(M, 2))", ws).mat(), ws["M"].mat());
    BOOST_TEST(ev("split_heads(M, 4)", ws).mats[3](1, 0) == 8.0f);
    BOOST_TEST(contains(eval_error("split_heads(M, 3)", ws), "heads (3) must divide d_model (4)"));
    BOOST_TEST(contains(eval_error("split_heads(M, 0)", ws),
                        "h must be a whole number of at least 1"));
}

BOOST_AUTO_TEST_CASE(split_rows_takes_row_blocks) {
    auto ws = ws_of({{"W", value::of(matrix::of({{1, 2}, {3, 4}, {5, 6}, {7, 8}}))}});
    value s = ev("split_rows(W, 2)", ws);
    BOOST_TEST(s.shape_str() == "[2, 2, 2]");
    check_close(s.mats[0], matrix::of({{1, 2}, {3, 4}}));
    check_close(s.mats[1], matrix::of({{5, 6}, {7, 8}}));
    BOOST_TEST(contains(eval_error("split_rows(W, 3)", ws),
                        "heads (3) must divide the rows of W (4)"));
    // The multi-head identity: concat(Z_i) @ W_O = sum_i Z_i @ W_O,i.
    auto ws2 = ws_of({{"Z", value::of(kernels::randn(3, 4, 1))},
                     {"W_O", value::of(kernels::randn(4, 4, 2))}});
    check_close(ev("sum_heads(split_heads(Z, 2) @ split_rows(W_O, 2))", ws2).mat(),
                kernels::matmul_ref(ws2["Z"].mat(), ws2["W_O"].mat()), 1e-4f);
}

BOOST_AUTO_TEST_CASE(concat_sum_mean_heads) {
    auto ws = ws_of({{"S", value::stack({matrix::of({{1, 2}}), matrix::of({{3, 5}})})},
                     {"M", value::of(matrix(1, 2))}});
    check_close(ev("concat_heads(S)", ws).mat(), matrix::of({{1, 2, 3, 5}}));
    check_close(ev("sum_heads(S)", ws).mat(), matrix::of({{4, 7}}));       // 1+3, 2+5
    check_close(ev("mean_heads(S)", ws).mat(), matrix::of({{2, 3.5f}}));   // halves of those
    BOOST_TEST(!ev("mean_heads(S)", ws).weights);
    BOOST_TEST(ev("mean_heads(softmax(S))", ws).weights);  // an average of distributions
    BOOST_TEST(!ev("sum_heads(softmax(S))", ws).weights);
    BOOST_TEST(contains(eval_error("concat_heads(M)", ws),
                        "concat_heads: S must be a stack of heads, got a matrix [1, 2]"));
}

BOOST_AUTO_TEST_CASE(batch_adds_a_leading_one) {
    auto ws = ws_of({{"M", value::of(matrix::of({{1, 2}, {3, 4}}))}});
    value b = ev("batch(M)", ws);
    BOOST_TEST(b.shape_str() == "[1, 2, 2]");
    check_close(b.mats[0], ws["M"].mat());
    BOOST_TEST(ev("batch(softmax(M))", ws).weights);
}

// ---------------------------------------------------------------------------------------------
// Whole-value numbers

BOOST_AUTO_TEST_CASE(statistics_over_all_entries) {
    // Entries 1, 2, 3, 4: mean 2.5; squared deviations 2.25, 0.25, 0.25, 2.25 -> var 5 / 4.
    auto ws = ws_of({{"M", value::of(matrix::of({{1, 2}, {3, 4}}))},
                     {"H", value::stack({matrix::of({{1, 2}}), matrix::of({{3, 4}})})}});
    BOOST_TEST(ev("mean(M)", ws).number == 2.5f);
    BOOST_TEST(ev("var(M)", ws).number == 1.25f);
    BOOST_TEST(ev("var(H)", ws).number == 1.25f);
    BOOST_TEST(ev("max(M)", ws).number == 4.0f);
    BOOST_TEST(ev("min(M)", ws).number == 1.0f);
    BOOST_TEST(ev("max(H)", ws).number == 4.0f);
    BOOST_TEST(ev("rows(M)", ws).number == 2.0f);
    BOOST_TEST(ev("cols(H)", ws).number == 2.0f);
    BOOST_TEST(ev("rows(H)", ws).number == 1.0f);
}

BOOST_AUTO_TEST_CASE(max_abs_diff_of_values) {
    auto ws = ws_of({{"A", value::of(matrix::of({{1, 2}}))},
                     {"B", value::of(matrix::of({{1.5f, 0}}))},
                     {"C", value::of(matrix(2, 1))}});
    BOOST_TEST(ev("max_abs_diff(A, B)", ws).number == 2.0f);  // |1 - 1.5| = 0.5, |2 - 0| = 2
    BOOST_TEST(ev("max_abs_diff(3, 1)", ws).number == 2.0f);
    // A[1, 2] = 2 (a scalar); A @ B^T = [[1*1.5 + 2*0]] = [[1.5]] (a [1, 1]): they compare.
    BOOST_TEST(ev("max_abs_diff(A[1, 2], A @ B^T)", ws).number == 0.5f);
    BOOST_TEST(contains(eval_error("max_abs_diff(A, C)", ws),
                        "the first argument is a matrix [1, 2], the second is a matrix [2, 1]"));
}

BOOST_AUTO_TEST_CASE(float_diff_counts_rounding_as_equal) {
    // 2^-16 of the largest |entry|: for entries up to 4, 4 / 65536 = 6.1e-05
    auto ws = ws_of({{"A", value::of(matrix::of({{4, 0.5f}}))},
                     {"B", value::of(matrix::of({{4, 0.50005f}}))},   // off by 5e-05: rounding
                     {"C", value::of(matrix::of({{4, 0.5001f}}))},    // off by 1e-04: more than rounding
                     {"D", value::of(matrix::of({{0.001f, 0}}))},
                     {"E", value::of(matrix::of({{0.001f, 1e-7f}}))},  // 1e-07 against 0.001 / 65536 = 1.5e-08
                     {"N", value::of(matrix::of({{4, std::nanf("")}}))}});
    BOOST_TEST(ev("float_diff(A, B)", ws).number == 0.0f);
    BOOST_TEST(ev("float_diff(A, C)", ws).number == ev("max_abs_diff(A, C)", ws).number);
    BOOST_TEST(ev("float_diff(D, E)", ws).number == 1e-7f);  // the scale is the values', not 1
    BOOST_TEST(ev("float_diff(A, A)", ws).number == 0.0f);
    BOOST_TEST(std::isnan(ev("float_diff(A, N)", ws).number));  // NaN is never "equal"
    BOOST_TEST(std::isnan(ev("max_abs_diff(A, N)", ws).number));  // nor 0 apart
    BOOST_TEST(contains(eval_error("float_diff(A, identity(2))", ws), "same shape"));
}

// ---------------------------------------------------------------------------------------------
// Matrices from nothing

BOOST_AUTO_TEST_CASE(randn_matches_the_kernel_and_checks_its_arguments) {
    value r = ev("randn(2, 3, 7)");
    check_close(r.mat(), kernels::randn(2, 3, 7), 0.0f);
    BOOST_TEST(contains(eval_error("randn(-1, 3, 7)"),
                        "randn: r must be a non-negative whole number, got -1"));
    BOOST_TEST(contains(eval_error("randn(2, 2.5, 7)"),
                        "c must be a non-negative whole number, got 2.5"));
    BOOST_TEST(contains(eval_error("randn(65536, 65536, 1)"), "more than the limit of 2^28"));
    BOOST_TEST(contains(eval_error("randn(2, zeros(1, 1), 7)"), "got a matrix [1, 1]"));
}

BOOST_AUTO_TEST_CASE(rand_is_uniform_in_the_unit_interval) {
    value r = ev("rand(2, 3, 7)");
    check_close(r.mat(), kernels::rand_uniform(2, 3, 7), 0.0f);
    // 10 000 draws of U[0, 1): mean 1/2, variance 1/12 ≈ 0.0833, every one in [0, 1).
    matrix big = kernels::rand_uniform(100, 100, 3);
    double sum = 0, sq = 0;
    for (float x : big.data) {
        BOOST_TEST((x >= 0.0f && x < 1.0f));
        sum += x, sq += double(x) * x;
    }
    double mean = sum / 1e4, var = sq / 1e4 - mean * mean;
    BOOST_TEST(std::abs(mean - 0.5) < 0.015);   // 5 standard errors: 5 * sqrt(1/12 / 1e4) ≈ 0.0144
    BOOST_TEST(std::abs(var - 1.0 / 12) < 0.004);
    BOOST_TEST(contains(eval_error("rand(-1, 3, 7)"), "rand: r must be a non-negative whole number"));
}

BOOST_AUTO_TEST_CASE(uniform_zeros_identity) {
    value u = ev("uniform(2, 4)");
    check_close(u.mat(), matrix(2, 4, 0.25f));
    BOOST_TEST(u.weights);
    BOOST_TEST(contains(eval_error("uniform(2, 0)"), "m must be a whole number of at least 1"));
    check_close(ev("zeros(2, 3)").mat(), matrix(2, 3, 0.0f));
    check_close(ev("identity(3)").mat(), matrix::of({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}));
    // I @ X = X, through BLAS.
    auto ws = ws_of({{"X", value::of(matrix::of({{1, 2}, {3, 4}, {5, 6}}))}});
    check_close(ev("identity(3) @ X", ws).mat(), ws["X"].mat());
}

BOOST_AUTO_TEST_CASE(a_stack_says_what_its_matrices_are) {
    auto ws = ws_of({{"X", value::of(matrix::of({{1, 2}, {3, 4}}))}, {"W", value::of(matrix::of({{1, 0}, {0, 1}}))}});
    BOOST_TEST(ev("split_heads(X, 2)", ws).stack_axis == "heads");
    BOOST_TEST(ev("split_cols(W, 2)", ws).stack_axis == "devices");
    BOOST_TEST(ev("X @ split_cols(W, 2)", ws).stack_axis == "devices");      // carried through a product
    BOOST_TEST(ev("split_cols(W, 2) * 2 + 1", ws).stack_axis == "devices");  // and elementwise
    BOOST_TEST(ev("batch(X)", ws).stack_axis == "samples");                  // PyTorch's batch axis
    BOOST_TEST(std::string(stack_item(ev("batch(X)", ws))) == "sample");
}

BOOST_AUTO_TEST_CASE(argmax_and_argmin_count_from_one) {
    auto ws = ws_of({{"r", value::of(matrix::of({{0.2f, 0.7f, 0.7f, 0.1f}}))}, {"M", value::of(matrix::of({{1, 2}, {3, 4}}))}});
    BOOST_TEST(ev("argmax(r)", ws).number == 2.0f);     // 0.7 first at position 2 (the tie goes to the first)
    BOOST_TEST(ev("argmin(r)", ws).number == 4.0f);     // 0.1 at position 4
    BOOST_TEST(ev("argmax(r^T)", ws).number == 2.0f);   // a column alike
    BOOST_TEST(contains(eval_error("argmax(M)", ws), "one row [1, d] or one column [n, 1]"));
}

// Issue 40: "most" must be true on a tie. Two weights equal in mathematics may differ in the last
// bit from one kernel to another: the first of them is the argmax on every CPU, and ties counts
// both; weights apart by more than float rounding are no tie.
BOOST_AUTO_TEST_CASE(ties_count_the_largest_to_float_precision) {
    const float w = 0.4235f, next = std::nextafter(w, 1.0f);  // one bit above
    auto ws = ws_of({{"r", value::of(matrix::of({{w, 0.06f, next, 0.1f}}))},
                     {"s", value::of(matrix::of({{0.3f, 0.5f, 0.2f}}))},
                     {"M", value::of(matrix::of({{1, 2}, {3, 4}}))}});
    BOOST_TEST(ev("ties(r)", ws).number == 2.0f);
    BOOST_TEST(ev("argmax(r)", ws).number == 1.0f);  // not 3, the one bit larger
    BOOST_TEST(ev("ties(r^T)", ws).number == 2.0f);
    BOOST_TEST(ev("ties(s)", ws).number == 1.0f);
    BOOST_TEST(contains(eval_error("ties(M)", ws), "one row [1, d] or one column [n, 1]"));
}

// Issue 27: sgesvd never returns on a matrix holding both inf and NaN (exp(1000) is inf, and
// 0 * inf is NaN), so the SVD built-ins refuse any non-finite entry before LAPACK sees it.
// Without the check this case does not end.
BOOST_AUTO_TEST_CASE(the_svd_refuses_non_finite_entries_at_once) {
    auto ws = ws_of({{"X", value::of(matrix::of({{0, 1}, {2, 3}}))}, {"F", value::of(matrix::of({{1, 2}, {3, 4}}))}});
    // X * exp(1000) = [[0*inf, inf], [inf, inf]] = [[NaN, inf], [inf, inf]]: the first bad entry is [1, 1]
    BOOST_TEST(contains(eval_error("singular_values(X * exp(1000))", ws), "singular_values(A): A[1, 1] is NaN"));
    BOOST_TEST(contains(eval_error("rank_k(X * exp(1000), 1)", ws), "rank_k(A, k): A[1, 1] is NaN"));
    BOOST_TEST(contains(eval_error("rank_k(F * exp(1000), 1)", ws), "A[1, 1] is inf"));        // all inf
    BOOST_TEST(contains(eval_error("singular_values(F - F * exp(1000))", ws), "A[1, 1] is -inf"));
    BOOST_TEST(contains(eval_error("rank_errors(X * exp(1000))", ws), "A[1, 1] is NaN"));
    // a finite matrix still runs: [[1, 2], [3, 4]] has singular values whose squares sum
    // to the squared Frobenius norm 1 + 4 + 9 + 16 = 30
    const matrix s = ev("singular_values(F)", ws).mat();
    float sum = 0;
    for (std::size_t i = 0; i < s.size(); ++i) sum += s.data[i] * s.data[i];
    BOOST_TEST(sum == 30.0f, boost::test_tools::tolerance(1e-5f));
}

BOOST_AUTO_TEST_CASE(diagonal_reads_one_diagonal_head_by_head) {
    workspace ws;
    ws["M"] = value::of(matrix::of({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}));
    check_close(ev("diagonal(M, 0)", ws).mat(), matrix::of({{1}, {5}, {9}}));
    check_close(ev("diagonal(M, -1)", ws).mat(), matrix::of({{4}, {8}}));  // each row's entry one column back
    check_close(ev("diagonal(M, 2)", ws).mat(), matrix::of({{3}}));
    ws["W"] = value::of(matrix::of({{1, 2, 3}, {4, 5, 6}}));  // [2, 3]: row 2 has an entry at column 3
    check_close(ev("diagonal(W, 1)", ws).mat(), matrix::of({{2}, {6}}));
    ws["S"] = value::stack({matrix::of({{1, 0}, {0.5f, 0.5f}}), matrix::of({{1, 0}, {0.9f, 0.1f}})});
    const value d = ev("diagonal(S, -1)", ws);
    BOOST_TEST_REQUIRE(d.is_stack());
    BOOST_TEST(d.mats[1](0, 0) == 0.9f);
    BOOST_TEST(contains(eval_error("diagonal(M, 3)", ws), "k must be a whole number from -2 to 2"));
    BOOST_TEST(contains(eval_error("diagonal(M, 0.5)", ws), "k must be a whole number"));
}

// The head detector on "a b a b", by hand. Duplicates: a₃ of a₁, b₄ of b₂; induction: one column
// to the right, (3, 2) and (4, 3); previous-token: (2, 1), (3, 2), (4, 3). A's rows sum to 1, so
// sum(A) = 4, and each score is the weight on the pattern's cells over 4.
BOOST_AUTO_TEST_CASE(the_head_detector_scores_the_share_of_weight_on_a_pattern) {
    workspace ws;
    ws["X"] = value::of(matrix(4, 2), {{"a", "b", "a", "b"}, "tokens"}, {});
    ws["A"] = value::of(matrix::of({{1, 0, 0, 0}, {0.5f, 0.5f, 0, 0}, {0.2f, 0.6f, 0.2f, 0}, {0.1f, 0.1f, 0.7f, 0.1f}}));
    check_close(ev("duplicate_token_pattern(X)", ws).mat(), matrix::of({{0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}}));
    check_close(ev("induction_pattern(X)", ws).mat(), matrix::of({{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}));
    check_close(ev("previous_token_pattern(4)", ws).mat(), matrix::of({{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}));
    // induction: 0.6 + 0.7 = 1.3; previous-token: 0.5 + 0.6 + 0.7 = 1.8; duplicate: 0.2 + 0.1 = 0.3
    BOOST_TEST(ev("head_score(A, induction_pattern(X))", ws).number == 1.3f / 4, boost::test_tools::tolerance(1e-6f));
    BOOST_TEST(ev("head_score(A, previous_token_pattern(4))", ws).number == 1.8f / 4, boost::test_tools::tolerance(1e-6f));
    BOOST_TEST(ev("head_score(A, duplicate_token_pattern(X))", ws).number == 0.3f / 4, boost::test_tools::tolerance(1e-6f));
    // a stack: one score per head, [h, 1]
    ws["S"] = value::stack({ws["A"].mat(), matrix::of({{1, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}})});
    const matrix s = ev("head_score(S, previous_token_pattern(4))", ws).mat();
    BOOST_TEST_REQUIRE((s.rows == 2u && s.cols == 1u));
    BOOST_TEST(s(1, 0) == 3.0f / 4, boost::test_tools::tolerance(1e-6f));  // rows 2–4 all one back
    BOOST_TEST(contains(eval_error("head_score(A, previous_token_pattern(3))", ws), "must have P's shape"));
    ws["Y"] = value::of(matrix(2, 2));  // no tokens on its rows
    BOOST_TEST(contains(eval_error("induction_pattern(Y)", ws), "labelled with the sentence's tokens"));
}
