// The shipped exercises as the exercise suites judge them: the set read once, each exercise run once
// (cached), answers of every kind built from plain numbers, and the checker's verdict on them.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "qkv/exercise.hpp"
#include "qkv/judge.hpp"
#include "support/exercise_reference.hpp"

namespace qkv::test {

inline const exercise_set& shipped() {
    static const exercise_set set = load_exercises(exercises_dir());
    return set;
}
inline const exercise& ex(const std::string& id) {
    const exercise* e = find_exercise(shipped(), id);
    BOOST_REQUIRE_MESSAGE(e, "no exercise " << id);
    return *e;
}
inline const exercise_run& run_of(const std::string& id) {
    static std::map<std::string, exercise_run> cache;
    if (!cache.count(id)) cache.emplace(id, run_exercise(ex(id), lang::en));
    return cache.at(id);
}

inline answer number(double x) { answer a; a.kind = answer_kind::number; a.number = x; return a; }
inline answer shape(std::vector<std::size_t> s) { answer a; a.kind = answer_kind::shape; a.shape = std::move(s); return a; }
inline answer rows(const mat& m) {
    answer a;
    a.kind = answer_kind::matrix;
    a.m = matrix(m.size(), m[0].size());
    for (std::size_t i = 0; i < m.size(); ++i)
        for (std::size_t j = 0; j < m[0].size(); ++j) a.m(i, j) = static_cast<float>(m[i][j]);
    return a;
}
inline answer row(const std::vector<double>& r) { return rows(mat{r}); }
inline answer choice(char c) { answer a; a.kind = answer_kind::choice; a.choice = c; return a; }

inline verdict judged(const std::string& id, const answer& a) { return judge(ex(id), a, run_of(id)); }

// Whether the verdict names `mistake` among the mistakes it recognised.
inline bool names(const verdict& v, const std::string& mistake) {
    return std::find(v.mistakes.begin(), v.mistakes.end(), mistake) != v.mistakes.end();
}

}  // namespace qkv::test
