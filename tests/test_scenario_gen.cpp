// Your own sentence: the generated scenario is the seeded generator's numbers rounded to two
// decimals, the same for the same seed, and a written scenario file reads back to exactly the
// same floats (generated ones, the hand-made apple.toml, and numbers with many digits).
#define BOOST_TEST_MODULE scenario_gen
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "qkv/error.hpp"
#include "qkv/kernels.hpp"
#include "qkv/scenario_gen.hpp"
#include "support/scratch.hpp"

using namespace qkv;
namespace fs = std::filesystem;

namespace {

// Write text to a fresh file and load it as a scenario.
scenario reload(const std::string& text) {
    const qkv::test::scratch_dir scratch("scenario-gen");
    const fs::path p = scratch / "s.toml";
    std::ofstream(p, std::ios::binary) << text;
    return load_scenario(p.string());
}

void expect_same(const scenario& a, const scenario& b) {
    BOOST_TEST(a.name == b.name);
    BOOST_TEST(a.tokens == b.tokens);
    BOOST_TEST((a.heads == b.heads));
    BOOST_REQUIRE_EQUAL(a.matrices.size(), b.matrices.size());
    for (const auto& [name, m] : a.matrices) {
        BOOST_TEST_CONTEXT(name) {
            BOOST_REQUIRE(b.matrices.count(name));
            const matrix& n = b.matrices.at(name);
            BOOST_TEST(m.rows == n.rows);
            BOOST_TEST(m.cols == n.cols);
            for (std::size_t i = 0; i < m.size() && m.size() == n.size(); ++i)
                BOOST_TEST(m.data[i] == n.data[i], "cell " << i << ": " << m.data[i] << " != " << n.data[i]);  // exactly
        }
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(tokens_are_split_at_spaces) {
    BOOST_TEST((split_tokens("我 爱 吃 苹果") == std::vector<std::string>{"我", "爱", "吃", "苹果"}));
    BOOST_TEST((split_tokens("  the\tcat  sat ") == std::vector<std::string>{"the", "cat", "sat"}));
    BOOST_TEST(split_tokens("   ").empty());
}

BOOST_AUTO_TEST_CASE(numbers_are_the_generator_rounded_to_two_decimals) {
    scenario s = generate_scenario({{"我", "爱", "吃", "苹果"}, 4, 2, 7});
    BOOST_TEST(s.name == "我 爱 吃 苹果");
    BOOST_TEST(*s.heads == 2u);
    // X comes from stream seed·5 = 35 at scale 1; W_Q from stream 36 at scale 1/sqrt(4) = 0.5.
    matrix E = kernels::randn(4, 4, 35), WQ = kernels::randn(4, 4, 36);
    for (std::size_t i = 0; i < 16; ++i) {
        // Rounded by hand: to the nearest hundredth, e.g. 0.4567 -> 0.46.
        BOOST_TEST(std::fabs(s.matrices.at("X").data[i] - E.data[i]) <= 0.005f + 1e-6f);
        BOOST_TEST(std::fabs(s.matrices.at("W_Q").data[i] - 0.5f * WQ.data[i]) <= 0.005f + 1e-6f);
    }
    for (const auto& [name, m] : s.matrices) {
        BOOST_TEST_CONTEXT(name) {
            BOOST_TEST(m.cols == 4u);
            for (float x : m.data) BOOST_TEST(std::fabs(x * 100 - std::round(x * 100)) < 1e-3f, x << " has more than two decimals");
        }
    }
    for (const char* w : {"W_Q", "W_K", "W_V", "W_O"}) BOOST_TEST(s.matrices.at(w).rows == 4u);
}

BOOST_AUTO_TEST_CASE(the_same_seed_gives_the_same_numbers_and_another_seed_others) {
    scenario a = generate_scenario({{"a", "b", "c"}, 6, 3, 11});
    scenario b = generate_scenario({{"a", "b", "c"}, 6, 3, 11});
    scenario c = generate_scenario({{"a", "b", "c"}, 6, 3, 12});
    expect_same(a, b);
    BOOST_TEST((a.matrices.at("X") != c.matrices.at("X")));
    BOOST_TEST((a.matrices.at("W_Q") != a.matrices.at("W_K")));  // each matrix its own stream
}

BOOST_AUTO_TEST_CASE(a_token_that_comes_twice_has_one_embedding) {
    scenario s = generate_scenario({{"the", "cat", "the"}, 4, 1, 1});
    const matrix& X = s.matrices.at("X");
    for (std::size_t c = 0; c < 4; ++c) BOOST_TEST(X(0, c) == X(2, c));
    BOOST_TEST((std::vector<float>(X.row(0), X.row(0) + 4) != std::vector<float>(X.row(1), X.row(1) + 4)));
}

BOOST_AUTO_TEST_CASE(bad_specs_say_what_is_wrong) {
    BOOST_CHECK_THROW(generate_scenario({{}, 4, 2, 1}), input_error);
    BOOST_CHECK_THROW(generate_scenario({{"a"}, 4, 3, 1}), input_error);  // 3 does not divide 4
    BOOST_CHECK_THROW(generate_scenario({{"a"}, 0, 1, 1}), input_error);
    BOOST_CHECK_THROW(generate_scenario({std::vector<std::string>(65, "x"), 4, 2, 1}), input_error);
    BOOST_CHECK_EXCEPTION(generate_scenario({{"a"}, 6, 4, 1}), input_error, [](const input_error& e) {
        return std::string(e.what()) == "--heads 4 must divide --d-model 6";
    });
}

BOOST_AUTO_TEST_CASE(a_written_scenario_reads_back_to_the_same_floats) {
    for (std::uint64_t seed : {1u, 2u, 99u, 123456u}) {
        scenario s = generate_scenario({{"我", "爱", "吃", "苹果"}, 8, 2, seed});
        BOOST_TEST_CONTEXT("seed " << seed) { expect_same(s, reload(scenario_toml(s, "a comment\nwith a newline"))); }
    }
}

BOOST_AUTO_TEST_CASE(hand_made_and_many_digit_scenarios_read_back_too) {
    scenario apple = load_scenario("data/apple.toml");
    expect_same(apple, reload(scenario_toml(apple)));
    scenario odd;
    odd.name = "quotes \" and \\ backslash\tand tab";
    odd.tokens = {"\"", "\\", "a b"};
    // Values with more than two decimals, a tiny one, a large one: written with nine digits.
    odd.matrices["X"] = matrix::of({{0.1234567f, -1e-7f}, {3.0e20f, 1.0f / 3.0f}, {-0.005f, 2.0f}});
    odd.matrices["extra"] = matrix::of({{0.1f}});
    expect_same(odd, reload(scenario_toml(odd)));
}

BOOST_AUTO_TEST_CASE(the_file_reads_as_a_person_would_write_it) {
    scenario s;
    s.name = "ab";
    s.tokens = {"a", "b"};
    s.heads = 1;
    s.matrices["X"] = matrix::of({{1.5f, -0.25f}, {0.0f, 10.0f}});
    s.matrices["W_Q"] = matrix::of({{1, 0}, {0, 1}});
    std::string want =
        "# made by hand\n"
        "name = \"ab\"\n"
        "tokens = [\"a\", \"b\"]\n"
        "heads = 1\n"
        "\n"
        "[matrices]\n"
        "X = [  # [2, 2]\n"
        "  [ 1.50, -0.25],\n"
        "  [ 0.00, 10.00],\n"
        "]\n"
        "W_Q = [  # [2, 2]\n"
        "  [1.00, 0.00],\n"
        "  [0.00, 1.00],\n"
        "]\n";
    BOOST_TEST(scenario_toml(s, "made by hand") == want);
    BOOST_TEST(spec_arguments({{"it's", "me"}, 4, 2, 3}) == "--tokens 'it'\\''s me' --d-model 4 --heads 2 --seed 3");
}
