// Answers as learners type them: every accepted spelling of each kind reads the same, and what
// cannot be read is refused with a reason.
#define BOOST_TEST_MODULE answer
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "qkv/answer.hpp"
#include "qkv/error.hpp"
#include "support/scratch.hpp"

using namespace qkv;

namespace {

std::string temp_file(const std::string& name, const std::string& text) {
    static const qkv::test::scratch_dir scratch("answer");
    auto path = scratch / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
}

}  // namespace

BOOST_AUTO_TEST_CASE(choice_any_case_and_blanks) {
    BOOST_TEST(parse_choice("B") == 'B');
    BOOST_TEST(parse_choice("b") == 'B');
    BOOST_TEST(parse_choice("  d\n") == 'D');
    BOOST_CHECK_THROW(parse_choice("E"), input_error);
    BOOST_CHECK_THROW(parse_choice("AB"), input_error);
    BOOST_CHECK_THROW(parse_choice(""), input_error);
    BOOST_CHECK_THROW(parse_choice("C", 2), input_error);  // only A and B offered
}

BOOST_AUTO_TEST_CASE(shape_every_spelling) {
    const std::vector<std::size_t> want{100, 100};
    for (const char* s : {"(100, 100)", "100x100", "100×100", "[100, 100]", "100 100", "100X100", "100*100",
                          " ( 100 ,100 ) ", "100 × 100", "100,100"}) {
        BOOST_TEST_CONTEXT(s) { BOOST_TEST(parse_shape(s) == want, boost::test_tools::per_element()); }
    }
    std::vector<std::size_t> three{1, 10, 10};
    BOOST_TEST(parse_shape("(1, 10, 10)") == three, boost::test_tools::per_element());
    BOOST_TEST(shape_text({100, 64}) == "[100, 64]");
}

BOOST_AUTO_TEST_CASE(shape_unreadable) {
    for (const char* s : {"abc", "", "()", "(0, 3)", "-1 2", "1.5 2", "100y100"}) {
        BOOST_TEST_CONTEXT(s) { BOOST_CHECK_THROW(parse_shape(s), input_error); }
    }
    try {
        parse_shape("abc");
    } catch (const input_error& e) {
        BOOST_TEST(std::string(e.what()).find("is not a shape") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(number_every_spelling) {
    // 0.25 = 1/4 = 2.5 × 10⁻¹, all exact in binary, so equality is exact.
    for (const char* s : {"0.25", "1/4", "2.5e-1", " 0.25\n", ".25", "+0.25", "1 / 4", "25e-2", "0.5/2"}) {
        BOOST_TEST_CONTEXT(s) { BOOST_TEST(parse_number(s) == 0.25); }
    }
    BOOST_TEST(parse_number("-0.5") == -0.5);
    BOOST_TEST(parse_number("-1/2") == -0.5);
    BOOST_TEST(parse_number("-.5") == -0.5);
    BOOST_TEST(parse_number("3") == 3.0);
}

BOOST_AUTO_TEST_CASE(number_unreadable) {
    for (const char* s : {"abc", "", "1/0", "nan", "inf", "0.25.1", "1/4/2", "1e999", "0,25", "1/", "/4"}) {
        BOOST_TEST_CONTEXT(s) { BOOST_CHECK_THROW(parse_number(s), input_error); }
    }
}

BOOST_AUTO_TEST_CASE(matrix_inline_and_csv) {
    matrix want = matrix::of({{1, 2}, {3, 4}});
    for (const char* s : {"[[1, 2], [3, 4]]", "[[1,2],[3,4]]", " [ [1, 2] ,\n [3, 4] ] ", "1, 2\n3, 4", "1 2\n3 4\n",
                          "[[1, 2], [3, 4],]"}) {
        BOOST_TEST_CONTEXT(s) { BOOST_TEST((parse_matrix(s) == want)); }
    }
    matrix row = parse_matrix("[0.5, 1/4, -2]");  // one row: [1, 3]
    BOOST_TEST(row.rows == 1u);
    BOOST_TEST(row.cols == 3u);
    BOOST_TEST(row(0, 1) == 0.25f);
    BOOST_TEST(row(0, 2) == -2.0f);
    BOOST_TEST(parse_matrix("0.1, 0.2, 0.7").cols == 3u);
}

BOOST_AUTO_TEST_CASE(matrix_unreadable) {
    for (const char* s : {"abc", "", "[[1, 2], [3]]", "[[1, 2]", "[[1, x]]", "[]", "1, 2\n3", "[[1, nan]]", "[[1], 2]"}) {
        BOOST_TEST_CONTEXT(s) { BOOST_CHECK_THROW(parse_matrix(s), input_error); }
    }
}

BOOST_AUTO_TEST_CASE(answers_as_a_chinese_keyboard_types_them) {
    const std::vector<std::size_t> want{100, 100};
    // full-width parentheses and comma, the enumeration comma 、, full-width digits
    for (const char* s : {"（100，100）", "100，100", "100、100", "（１００，１００）", "［100，100］"}) {
        BOOST_TEST_CONTEXT(s) { BOOST_TEST(parse_shape(s) == want, boost::test_tools::per_element()); }
    }
    BOOST_TEST(parse_choice("Ｂ") == 'B');
    BOOST_TEST(parse_choice("ｂ") == 'B');
    matrix row = parse_matrix("[0.55，0.15，0.30]");
    BOOST_TEST(row.cols == 3u);
    BOOST_TEST(row(0, 2) == 0.30f);
    BOOST_TEST(parse_matrix("0.55、0.15、0.30").cols == 3u);
    BOOST_TEST(parse_number("０.２５") == 0.25);
    BOOST_TEST(typed_ascii("Ｂ，（）：－　、") == "B,():- ,");
}

BOOST_AUTO_TEST_CASE(choices_with_the_punctuation_around_them) {
    for (const char* s : {"B)", "(b)", "B.", "b:", "[B]", " (B) "}) {
        BOOST_TEST_CONTEXT(s) { BOOST_TEST(parse_choice(s) == 'B'); }
    }
    for (const char* s : {"B)C", "(AB)", "()", "."}) {
        BOOST_TEST_CONTEXT(s) { BOOST_CHECK_THROW(parse_choice(s), input_error); }
    }
}

BOOST_AUTO_TEST_CASE(matrices_as_numpy_and_pytorch_print_them) {
    // print(np.array([0.55, 0.15, 0.3])) and a 2-D print, pasted as they appear
    matrix row = parse_matrix("[0.55 0.15 0.3 ]");
    BOOST_TEST(row.rows == 1u);
    BOOST_TEST(row.cols == 3u);
    BOOST_TEST(row(0, 0) == 0.55f);
    matrix want = matrix::of({{1, 2}, {3, 4}});
    for (const char* s : {"[[1. 2.]\n [3. 4.]]", "array([[1., 2.],\n       [3., 4.]], dtype=float32)", "tensor([[1., 2.], [3., 4.]])",
                          "[[1.0000e+00 2.0000e+00]\n [3.0000e+00 4.0000e+00]]"}) {
        BOOST_TEST_CONTEXT(s) { BOOST_TEST((parse_matrix(s) == want)); }
    }
    const std::vector<std::size_t> shape{3, 4};
    BOOST_TEST(parse_shape("torch.Size([3, 4])") == shape, boost::test_tools::per_element());
    BOOST_CHECK_THROW(parse_matrix("[[1. 2.]\n [3.]]"), input_error);  // ragged stays refused
}

BOOST_AUTO_TEST_CASE(messages_in_the_students_language) {
    auto message = [](auto&& f) {
        try {
            f();
        } catch (const input_error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    BOOST_TEST(message([] { parse_shape("abc", lang::zh); }).find("不是形状") != std::string::npos);
    BOOST_TEST(message([] { parse_number("abc", lang::zh); }).find("不是数") != std::string::npos);
    BOOST_TEST(message([] { parse_choice("E", 4, lang::zh); }).find("不是选项") != std::string::npos);
    BOOST_TEST(message([] { parse_matrix("[[1, 2], [3]]", lang::zh); }).find("第 2 行有 1 个") != std::string::npos);
    BOOST_TEST(message([] { parse_shape("abc", lang::en); }).find("is not a shape") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(answers_from_files) {
    std::string csv = temp_file("m.csv", "# written by numpy.savetxt\n1.000000000000000000e+00,2.0\n3,4\n");
    answer a = read_answer_file(answer_kind::matrix, csv);
    BOOST_TEST((a.m == matrix::of({{1, 2}, {3, 4}})));
    std::string num = temp_file("n.txt", "1/4\n");
    BOOST_TEST(read_answer_file(answer_kind::number, num).number == 0.25);
    std::string empty = temp_file("empty.csv", "");
    BOOST_CHECK_THROW(read_answer_file(answer_kind::matrix, empty), input_error);
    BOOST_CHECK_THROW(read_answer_file(answer_kind::number, empty), input_error);
    BOOST_CHECK_THROW(read_answer_file(answer_kind::matrix, "/nonexistent/answer.csv"), input_error);
    for (const std::string& p : {csv, num, empty}) std::remove(p.c_str());
}

BOOST_AUTO_TEST_CASE(kinds_by_name) {
    for (answer_kind k : {answer_kind::choice, answer_kind::shape, answer_kind::number, answer_kind::matrix})
        BOOST_TEST((parse_kind(kind_name(k)) == k));
    BOOST_TEST(!parse_kind("vector").has_value());
}
