// The lessons run as a test reads them: a lesson by number on a scenario, and what its trace
// shows in a stage (what a renderer or a --format json reader sees), with small matrix helpers
// for the independent computations the lesson suites hold the traces to.
#pragma once

#include <cmath>
#include <string>

#include <boost/test/unit_test.hpp>

#include "qkv/lesson.hpp"
#include "qkv/matrix.hpp"
#include "qkv/scenario.hpp"
#include "qkv/trace.hpp"

namespace qkv::test {

inline const char* const apple_file = "data/apple.toml";
inline const char* const thinking_file = "data/thinking-machines.toml";
inline const char* const translation_file = "data/translation.toml";

inline std::string lesson_path(int number) {
    for (const auto& [n, path] : lesson_files("lessons"))
        if (n == number) return path;
    BOOST_FAIL("no lesson file numbered " << number << " in lessons/");
    return {};
}

inline lesson_run run(int number, const char* scenario_file = apple_file, lang l = lang::en) {
    return run_lesson(load_lesson(lesson_path(number)), load_scenario(scenario_file), l);
}

inline const stage_trace& stage_of(const trace& t, const std::string& id) {
    for (const auto& s : t.stages)
        if (s.id == id) return s;
    BOOST_FAIL("no stage '" << id << "'");
    return t.stages.front();
}

// A value as the trace shows it in stage `id`.
inline const value& shown(const trace& t, const std::string& id, const std::string& name) {
    for (const auto& v : stage_of(t, id).values)
        if (v.name == name) return v.v;
    BOOST_FAIL("stage '" << id << "' does not show " << name);
    static const value none;
    return none;
}
inline const matrix& shown_mat(const trace& t, const std::string& id, const std::string& name) {
    const value& v = shown(t, id, name);
    BOOST_TEST_REQUIRE(v.is_matrix(), name << " is not a matrix");
    return v.mat();
}
inline float shown_num(const trace& t, const std::string& id, const std::string& name) {
    const value& v = shown(t, id, name);
    BOOST_TEST_REQUIRE(v.is_scalar(), name << " is not a scalar");
    return v.number;
}

inline matrix scaled(matrix m, float by) {
    for (float& x : m.data) x *= by;
    return m;
}

// Columns from .. from + count - 1 of m: [rows, count].
inline matrix columns(const matrix& m, std::size_t from, std::size_t count) {
    matrix out(m.rows, count);  // out: [rows, count]
    for (std::size_t r = 0; r < m.rows; ++r)
        for (std::size_t c = 0; c < count; ++c) out(r, c) = m(r, from + c);
    return out;
}

// Every row of A sums to 1, as attention weights must; a row that does not is named in the log.
inline void check_rows_sum_to_one(const matrix& A, const std::string& what) {
    for (std::size_t r = 0; r < A.rows; ++r) {
        double sum = 0;
        for (std::size_t c = 0; c < A.cols; ++c) sum += A(r, c);
        BOOST_TEST(sum == 1.0, boost::test_tools::tolerance(1e-5));
        if (std::abs(sum - 1.0) > 1e-5) BOOST_TEST_MESSAGE(what << " row " << r + 1 << " sums to " << sum);
    }
}

// Rows from .. from + count - 1 of m: [count, cols].
inline matrix rows_of(const matrix& m, std::size_t from, std::size_t count) {
    matrix out(count, m.cols);
    for (std::size_t r = 0; r < count; ++r)
        for (std::size_t c = 0; c < m.cols; ++c) out(r, c) = m(from + r, c);
    return out;
}

}  // namespace qkv::test
