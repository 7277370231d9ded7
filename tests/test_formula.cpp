// The formula language: parse errors at exact line:column, precedence, broadcasting, stacks,
// labels, 1-based indexing, and the messages a lesson author sees when a formula is wrong.
#define BOOST_TEST_MODULE formula
#include <boost/test/unit_test.hpp>

#include "support/formula_suite.hpp"

namespace {

const source_loc here{"lesson.toml", 1, 1};

// The message of the input_error that parsing `text` at `where` throws ("" when none).
std::string parse_error(std::string_view text, const source_loc& where = here) {
    try {
        parse_formula(text, where);
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}


// A [2, 3], B [3, 2], a row r [1, 3] and a column c [2, 1], with hand-picked numbers.
workspace small() {
    return {{"A", value::of(matrix::of({{1, 2, 3}, {4, 5, 6}}))},
            {"B", value::of(matrix::of({{1, 0}, {0, 1}, {2, 2}}))},
            {"r", value::of(matrix::of({{10, 20, 30}}))},
            {"c", value::of(matrix::of({{100}, {200}}))},
            {"d_k", value::scalar(4.0f)}};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Parsing

BOOST_AUTO_TEST_CASE(statements_targets_text_and_locations) {
    // The formula starts at column 12 of line 7; its second line at column 1 of line 9.
    formula f = parse_formula("Q = X @ W_Q   # project\n\n  K = X @ W_K\n# only a comment\n",
                              {"l.toml", 7, 12});
    BOOST_TEST_REQUIRE(f.statements.size() == 2u);
    BOOST_TEST(f.statements[0].target == "Q");
    BOOST_TEST(f.statements[0].text == "Q = X @ W_Q");  // trimmed, comment dropped
    BOOST_TEST(f.statements[0].where.str() == "l.toml:7:12");
    BOOST_TEST(f.statements[1].target == "K");
    BOOST_TEST(f.statements[1].where.str() == "l.toml:9:3");
    BOOST_TEST(f.source == "Q = X @ W_Q   # project\n\n  K = X @ W_K\n# only a comment\n");
}

BOOST_AUTO_TEST_CASE(unclosed_call_names_where_it_opened) {
    // "S = softmax((Q @ K^T)" at column 11: 'softmax(' is at offset 11 -> column 22; the line
    // ends at offset 21 -> column 32.
    BOOST_TEST(parse_error("S = softmax((Q @ K^T)", {"l.toml", 5, 11}) ==
               "l.toml:5:32: expected ',' or ')' to close 'softmax(' opened at column 22, "
               "found the end of the line");
}

BOOST_AUTO_TEST_CASE(unclosed_parenthesis) {
    // "Z = (A @ V K" at column 12: '(' at offset 4 -> 16, 'K' at offset 11 -> 23.
    BOOST_TEST(parse_error("Z = (A @ V K", {"f", 3, 12}) ==
               "f:3:23: expected ')' to close '(' opened at column 16, found 'K'");
}

BOOST_AUTO_TEST_CASE(depth_is_bounded) {
    // Parsing: the formula itself is one level and each '(' adds one, so 199 parentheses make 200
    // levels and parse; 200 make 201, refused at the innermost '1', offset 4 + 200 -> column 205.
    // A minus sign is a level too. (5000 '(' overflowed the stack before the bound; found by
    // fuzzing.) The tree: "1+1" is two levels and each further "+1" one more, so 199 of them make
    // 200 and parse; 200 are refused, at the start of the chain, offset 4 -> column 5
    // (100000 "+1" overflowed the stack while evaluating).
    const std::string too_deep = "the formula is more than 200 levels deep (each operator, call, index and parenthesis is a level)";
    auto nested = [](int k) { return "Y = " + std::string(k, '(') + "1" + std::string(k, ')'); };
    auto chain = [](int k) {
        std::string f = "Y = 1";
        for (int i = 0; i < k; ++i) f += "+1";
        return f;
    };
    BOOST_TEST(parse_error(nested(199)) == "");
    BOOST_TEST(parse_error(nested(200)) == "lesson.toml:1:205: " + too_deep);
    BOOST_TEST(parse_error("Y = " + std::string(200, '-') + "1") == "lesson.toml:1:205: " + too_deep);
    BOOST_TEST(contains(parse_error(nested(100000)), too_deep));
    BOOST_TEST(parse_error(chain(199)) == "");
    BOOST_TEST(ev(chain(199).substr(4)).number == 200.0f);  // 1 + 199 ones
    BOOST_TEST(parse_error(chain(200)) == "lesson.toml:1:5: " + too_deep);
    BOOST_TEST(contains(parse_error(chain(100000)), too_deep));
}

BOOST_AUTO_TEST_CASE(unclosed_index) {
    // "x = A[1, 2" at column 1: '[' at offset 5 -> 6; end at offset 10 -> 11.
    BOOST_TEST(parse_error("x = A[1, 2") ==
               "lesson.toml:1:11: expected ']' to close '[' opened at column 6, found the end of "
               "the line");
}

BOOST_AUTO_TEST_CASE(error_on_a_later_line_counts_from_column_1) {
    // Line 4 of the text is line 13 of the file; '$' is its 13th character.
    BOOST_TEST(parse_error("Q = X @ W_Q\n# comment\n\nK = X @ W_K $", {"l.toml", 10, 12}) ==
               "l.toml:13:13: unexpected character '$'");
}

BOOST_AUTO_TEST_CASE(a_wide_character_is_quoted_whole) {
    // '苹' is three bytes in UTF-8 but one character: column 5, quoted whole.
    BOOST_TEST(parse_error("S = 苹果") == "lesson.toml:1:5: unexpected character '苹'");
    // After a wide character in a comment line, columns on the next line start again at 1.
    BOOST_TEST(parse_error("# 苹果\nS = Q ^ 2") ==
               "lesson.toml:2:7: expected 'T' after '^' (A^T is the transpose; there is no "
               "power operator)");
}

BOOST_AUTO_TEST_CASE(what_each_position_expects) {
    BOOST_TEST(parse_error("S = Q @") ==
               "lesson.toml:1:8: expected a number, a name or '(', found the end of the line");
    BOOST_TEST(parse_error("= Q") ==
               "lesson.toml:1:1: expected a name to assign to, as in `S = Q @ K^T`, found '='");
    BOOST_TEST(parse_error("S Q") == "lesson.toml:1:3: expected '=' after 'S', found 'Q'");
    BOOST_TEST(parse_error("S = Q K") ==
               "lesson.toml:1:7: expected an operator or the end of the line, found 'K'");
    BOOST_TEST(parse_error("S = * Q") ==
               "lesson.toml:1:5: expected a number, a name or '(', found '*'");
    BOOST_TEST(parse_error("x = 2e + 1") == "lesson.toml:1:5: malformed number '2e'");
    BOOST_TEST(parse_error("x = 1.2.3") == "lesson.toml:1:5: malformed number '1.2.3'");
    BOOST_TEST(parse_error("  # nothing\n\n") ==
               "lesson.toml:1:1: expected a statement such as `S = Q @ K^T`, found none");
}

BOOST_AUTO_TEST_CASE(parse_expression_takes_one_line) {
    BOOST_CHECK_THROW(parse_expression("Q\n  K", here), input_error);
    try {
        parse_expression("Q\n  K", here);
    } catch (const input_error& e) {
        BOOST_TEST(e.what() == std::string("lesson.toml:2:3: expected one expression, found a "
                                           "second line"));
    }
    BOOST_CHECK_THROW(parse_expression("S = Q", here), input_error);  // no assignment here
}

BOOST_AUTO_TEST_CASE(numbers) {
    BOOST_TEST(ev("2.5e-1").number == 0.25f);
    BOOST_TEST(ev("0.5").number == 0.5f);
    BOOST_TEST(ev(".5").number == 0.5f);
    BOOST_TEST(ev("1E2").number == 100.0f);
}

// ---------------------------------------------------------------------------------------------
// Precedence

BOOST_AUTO_TEST_CASE(arithmetic_precedence_and_associativity) {
    BOOST_TEST(ev("1 + 2 * 3").number == 7.0f);
    BOOST_TEST(ev("(1 + 2) * 3").number == 9.0f);
    BOOST_TEST(ev("2 - 3 - 4").number == -5.0f);   // (2 - 3) - 4, not 2 - (3 - 4) = 3
    BOOST_TEST(ev("8 / 4 / 2").number == 1.0f);    // (8 / 4) / 2, not 8 / (4 / 2) = 4
    BOOST_TEST(ev("-2 * 3 + 1").number == -5.0f);
    BOOST_TEST(ev("- - 2").number == 2.0f);
    BOOST_TEST(ev("1 - -2").number == 3.0f);
}

BOOST_AUTO_TEST_CASE(star_and_at_share_a_level_left_to_right) {
    // The failing product's operands show the grouping: (2 * A) @ A, not 2 * (A @ A).
    std::string msg = eval_error("2 * A @ A", small());
    BOOST_TEST(contains(msg, ": 2 * A is [2, 3], A is [2, 3]"));
    // '+' binds looser than '@': A + (B @ A) -- here B @ A is [3, 3] and A is [2, 3].
    msg = eval_error("A + B @ A", small());
    BOOST_TEST(contains(msg, "'+' needs equal shapes"));
    BOOST_TEST(contains(msg, "A is [2, 3], B @ A is [3, 3]"));
}

BOOST_AUTO_TEST_CASE(transpose_binds_tighter_than_at) {
    // A @ A^T is A @ (A^T) -> [2, 2]; (A @ A)^T would fail. Check against the reference product.
    workspace ws = small();
    value v = ev("A @ A^T", ws);
    const matrix& A = ws["A"].mat();
    check_close(v.mat(), kernels::matmul_ref(A, kernels::transpose(A)));
    // [[1*1+2*2+3*3, 1*4+2*5+3*6], [.., 4*4+5*5+6*6]] = [[14, 32], [32, 77]]
    check_close(v.mat(), matrix::of({{14, 32}, {32, 77}}));
    // -A^T is -(A^T): the shape is [3, 2] and the first column is -1, -2, -3.
    check_close(ev("-A^T", ws).mat(), matrix::of({{-1, -4}, {-2, -5}, {-3, -6}}));
    // (A @ B)^T: [2, 2]^T; A @ B = [[1+6, 2+6], [4+12, 5+12]] = [[7, 8], [16, 17]].
    check_close(ev("(A @ B)^T", ws).mat(), matrix::of({{7, 16}, {8, 17}}));
    check_close(ev("A^T^T", ws).mat(), A);
}

// ---------------------------------------------------------------------------------------------
// Products, broadcasting, stacks

BOOST_AUTO_TEST_CASE(matrix_product_matches_the_reference) {
    workspace ws = small();
    check_close(ev("A @ B", ws).mat(), kernels::matmul_ref(ws["A"].mat(), ws["B"].mat()));
    check_close(ev("A @ B", ws).mat(), matrix::of({{7, 8}, {16, 17}}));
}

BOOST_AUTO_TEST_CASE(broadcasting_scalar_row_column) {
    workspace ws = small();
    check_close(ev("A + 1", ws).mat(), matrix::of({{2, 3, 4}, {5, 6, 7}}));
    check_close(ev("1 - A", ws).mat(), matrix::of({{0, -1, -2}, {-3, -4, -5}}));
    check_close(ev("A / 2", ws).mat(), matrix::of({{0.5f, 1, 1.5f}, {2, 2.5f, 3}}));
    check_close(ev("A / sqrt(d_k)", ws).mat(), matrix::of({{0.5f, 1, 1.5f}, {2, 2.5f, 3}}));
    check_close(ev("A + r", ws).mat(), matrix::of({{11, 22, 33}, {14, 25, 36}}));
    check_close(ev("r - A", ws).mat(), matrix::of({{9, 18, 27}, {6, 15, 24}}));
    check_close(ev("A * c", ws).mat(), matrix::of({{100, 200, 300}, {800, 1000, 1200}}));
    check_close(ev("A * A", ws).mat(), matrix::of({{1, 4, 9}, {16, 25, 36}}));
    BOOST_TEST(ev("d_k * d_k / 2", ws).number == 8.0f);
}

BOOST_AUTO_TEST_CASE(non_finite_results_are_allowed) {
    BOOST_TEST(ev("1 / 0").number == std::numeric_limits<float>::infinity());
    BOOST_TEST(std::isnan(ev("0 / 0").number));
}

BOOST_AUTO_TEST_CASE(shape_mismatch_names_stage_statement_and_both_shapes) {
    workspace ws = {{"Q", value::of(matrix(3, 4))}, {"K", value::of(matrix(3, 4))}};
    formula f = parse_formula("S = Q @ K", {"l.toml", 7, 12});
    eval_context ctx;
    ctx.stage_id = "scores";
    try {
        run_formula(f, ws, ctx);
        BOOST_FAIL("no error");
    } catch (const input_error& e) {
        BOOST_TEST(e.what() == std::string(
            "l.toml:7:12: stage 'scores', formula `S = Q @ K`: @ needs the columns of the left "
            "side to equal the rows of the right side: Q is [3, 4], K is [3, 4]"));
    }
    std::string msg = eval_error("Q + K^T", ws);
    BOOST_TEST(contains(msg, "stage 'test'"));
    BOOST_TEST(contains(msg, "Q is [3, 4], K^T is [4, 3]"));
    BOOST_TEST(contains(eval_error("Q @ 2", ws), "@ multiplies matrices, and 2 is a scalar"));
}

// Two heads of [2, 2]: H1 = [[1, 2], [3, 4]], H2 = [[0, 1], [1, 0]].
workspace with_stack() {
    workspace ws;
    ws["S"] = value::stack({matrix::of({{1, 2}, {3, 4}}), matrix::of({{0, 1}, {1, 0}})});
    ws["M"] = value::of(matrix::of({{1, 1}, {0, 2}}));
    ws["T3"] = value::stack({matrix(2, 2), matrix(2, 2), matrix(2, 2)});
    return ws;
}

BOOST_AUTO_TEST_CASE(stack_with_matrix_scalar_and_stack) {
    workspace ws = with_stack();
    struct by_head {
        const char* formula;
        matrix head_1, head_2;  // worked by hand
    };
    const by_head cases[] = {
        // Each head @ M: H1 @ M = [[1, 1+4], [3, 3+8]] = [[1, 5], [3, 11]]; H2 @ M = [[0, 2], [1, 1]].
        {"S @ M", matrix::of({{1, 5}, {3, 11}}), matrix::of({{0, 2}, {1, 1}})},
        // M @ each head: M @ H1 = [[4, 6], [6, 8]], M @ H2 = [[1, 1], [2, 0]].
        {"M @ S", matrix::of({{4, 6}, {6, 8}}), matrix::of({{1, 1}, {2, 0}})},
        // Head by head with itself: H1 @ H1 = [[7, 10], [15, 22]], H2 @ H2 = I.
        {"S @ S", matrix::of({{7, 10}, {15, 22}}), matrix::of({{1, 0}, {0, 1}})},
        // Elementwise.
        {"S + M", matrix::of({{2, 3}, {3, 6}}), matrix::of({{1, 2}, {1, 2}})},
        // ^T transposes each head.
        {"S^T", matrix::of({{1, 3}, {2, 4}}), matrix::of({{0, 1}, {1, 0}})},
    };
    for (const by_head& c : cases)
        BOOST_TEST_CONTEXT(c.formula) {
            const value v = ev(c.formula, ws);
            BOOST_TEST_REQUIRE(v.is_stack());
            BOOST_TEST_REQUIRE(v.mats.size() == 2u);
            check_close(v.mats[0], c.head_1);
            check_close(v.mats[1], c.head_2);
        }
    // A scalar times each head: 10 · H2.
    const value v = ev("10 * S", ws);
    BOOST_TEST(v.is_stack());
    check_close(v.mats[1], matrix::of({{0, 10}, {10, 0}}));
}

BOOST_AUTO_TEST_CASE(stacks_must_agree_on_heads) {
    workspace ws = with_stack();
    std::string msg = eval_error("S @ T3", ws);
    BOOST_TEST(contains(msg, "the same number of heads"));
    BOOST_TEST(contains(msg, "S is [2, 2, 2], T3 is [3, 2, 2]"));
    BOOST_TEST(contains(eval_error("S + T3", ws), "S is [2, 2, 2], T3 is [3, 2, 2]"));
}

// ---------------------------------------------------------------------------------------------
// Indexing

BOOST_AUTO_TEST_CASE(indexing_counts_from_one) {
    workspace ws = small();
    check_close(ev("A[2]", ws).mat(), matrix::of({{4, 5, 6}}));
    BOOST_TEST(ev("A[2, 3]", ws).number == 6.0f);
    BOOST_TEST(ev("A[1, 1 + 1]", ws).number == 2.0f);
    BOOST_TEST(ev("A[2][1, 3]", ws).number == 6.0f);
    workspace st = with_stack();
    value h2 = ev("S[2]", st);
    BOOST_TEST(h2.is_matrix());
    check_close(h2.mat(), matrix::of({{0, 1}, {1, 0}}));
    BOOST_TEST(ev("S[1][2, 1]", st).number == 3.0f);
}

BOOST_AUTO_TEST_CASE(index_errors) {
    workspace ws = small();
    BOOST_TEST(contains(eval_error("A[3]", ws),
                        "index 3 is out of range: A has 2 rows (counted from 1)"));
    BOOST_TEST(contains(eval_error("A[0]", ws), "index 0 is out of range"));
    BOOST_TEST(contains(eval_error("A[1, 4]", ws), "A has 3 columns"));
    BOOST_TEST(contains(eval_error("A[1.5]", ws), "index 1.5 is not a whole number"));
    BOOST_TEST(contains(eval_error("d_k[1]", ws), "d_k is a scalar"));
    BOOST_TEST(contains(eval_error("A[r]", ws), "an index must be a number, and r is [1, 3]"));
    workspace st = with_stack();
    BOOST_TEST(contains(eval_error("S[3]", st), "S has 2 heads"));
    BOOST_TEST(contains(eval_error("S[1, 1]", st), "takes one index, the head"));
}

// ---------------------------------------------------------------------------------------------
// Labels and the weights flag

BOOST_AUTO_TEST_CASE(labels_travel_through_operations) {
    labels tokens{{"苹果", "很", "甜"}, "tokens"};
    labels features{{}, "features"};
    workspace ws;
    ws["Q"] = value::of(matrix(3, 2, 1.0f), tokens, features);
    ws["K"] = value::of(matrix(3, 2, 2.0f), {{"a", "b", "c"}, "keys"}, features);
    ws["r"] = value::of(matrix(1, 2, 1.0f));
    // A product takes its rows from the left and its columns from the right; K^T swaps.
    value S = ev("Q @ K^T", ws);
    BOOST_TEST(S.rows.names == tokens.names);
    BOOST_TEST(S.cols.names == (std::vector<std::string>{"a", "b", "c"}));
    BOOST_TEST(S.cols.axis == "keys");
    value KT = ev("K^T", ws);
    BOOST_TEST(KT.rows.axis == "features");
    BOOST_TEST(KT.cols.axis == "keys");
    // Elementwise keeps the labels of the non-scalar operand, on either side.
    BOOST_TEST(ev("2 * Q", ws).rows.names == tokens.names);
    BOOST_TEST(ev("Q / 2", ws).rows.names == tokens.names);
    BOOST_TEST(ev("r + Q", ws).rows.names == tokens.names);  // the [1, 2] row has none of its own
    // A row keeps its own label; a head keeps the stack's.
    value row = ev("Q[2]", ws);
    BOOST_TEST(row.rows.names == (std::vector<std::string>{"很"}));
    BOOST_TEST(row.rows.axis == "tokens");
    BOOST_TEST(row.cols.axis == "features");
}

BOOST_AUTO_TEST_CASE(weights_flag_set_by_softmax_cleared_by_arithmetic) {
    workspace ws = small();
    BOOST_TEST(ev("softmax(A)", ws).weights);
    BOOST_TEST(ev("softmax(A)[1]", ws).weights);  // a row of weights is still a distribution
    BOOST_TEST(!ev("softmax(A) * 1", ws).weights);
    BOOST_TEST(!ev("-softmax(A)", ws).weights);
    BOOST_TEST(!ev("softmax(A)^T", ws).weights);
    BOOST_TEST(!ev("softmax(A) @ B", ws).weights);
}

// ---------------------------------------------------------------------------------------------
// Names, functions, statements

BOOST_AUTO_TEST_CASE(unknown_names_and_functions_suggest_the_nearest) {
    workspace ws = {{"W_Q", value::of(matrix(2, 2))}, {"X", value::of(matrix(2, 2))}};
    BOOST_TEST(contains(eval_error("X @ W_q", ws), "unknown name 'W_q'; did you mean 'W_Q'?"));
    BOOST_TEST(contains(eval_error("softmx(X)", ws),
                        "unknown function 'softmx'; did you mean 'softmax'?"));
    BOOST_TEST(contains(eval_error("Z", ws), "unknown name 'Z'; the names known here are W_Q, X"));
    BOOST_TEST(contains(eval_error("frobnicate(X)", ws), "unknown function 'frobnicate'"));
    BOOST_TEST(contains(eval_error("softmax", ws),
                        "'softmax' is a function: call it as softmax(S)"));
    BOOST_TEST(contains(eval_error("X(1)", ws), "'X' is a value, not a function"));
    BOOST_TEST(contains(eval_error("softmax(X, X)", ws),
                        "softmax takes 1 argument, as in softmax(S); got 2"));
    BOOST_TEST(contains(eval_error("randn(2)", ws),
                        "randn takes 3 arguments, as in randn(r, c, seed); got 1"));
}

BOOST_AUTO_TEST_CASE(run_formula_assigns_in_order) {
    workspace ws;
    ws["X"] = value::of(matrix::of({{1, 0}, {1, 1}}));
    ws["W"] = value::of(matrix::of({{2, 1}, {0, 1}}));
    formula f = parse_formula("Q = X @ W\nS = Q @ Q^T  # scores", here);
    eval_context ctx{here, "scores", ""};
    run_formula(f, ws, ctx);
    // Q = [[2, 1], [2, 2]]; S = Q Q^T = [[5, 6], [6, 8]].
    check_close(ws["Q"].mat(), matrix::of({{2, 1}, {2, 2}}));
    check_close(ws["S"].mat(), matrix::of({{5, 6}, {6, 8}}));
    check_close(ws["S"].mat(),
                kernels::matmul_ref(ws["Q"].mat(), kernels::transpose(ws["Q"].mat())));
    BOOST_TEST(ctx.statement_text == "S = Q @ Q^T");
    BOOST_TEST(ctx.where.line == 2);
}

BOOST_AUTO_TEST_CASE(names_read_in_order_of_first_use) {
    expr_ptr e = parse_expression("softmax(Q @ K^T / sqrt(d_k)) + Q[i] - 1", here);
    BOOST_TEST(names_read(*e) == (std::vector<std::string>{"Q", "K", "d_k", "i"}));
    formula f = parse_formula("S = 2 * 3", here);
    BOOST_TEST(names_read(*f.statements[0].rhs).empty());
}
