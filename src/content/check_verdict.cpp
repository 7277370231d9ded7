// One answer judged (check_verdict.hpp): judge.hpp's verdict with the mistakes named, the
// explanation and the right answer gathered into one value.
#include "qkv/check_verdict.hpp"

namespace qkv {

check_verdict check_answer(const exercise& e, const answer& a, const std::string& given, const exercise_run& r,
                           const mistake_book& book, int precision) {
    const verdict v = judge(e, a, r);
    const lang l = r.run.t.language;
    check_verdict c{e.id, e.lesson, e.kind, l, r.run.t.scenario, r.student, given, v.correct, {}, v.places,
                    explain(v, e, a, r, book, l, precision), expected_of(e, r), exercise_words(e.solution, e, r, l)};
    for (const std::string& id : v.mistakes) c.mistakes.push_back({id, book.count(id) ? book.at(id).in(l) : ""});
    return c;
}

}  // namespace qkv
