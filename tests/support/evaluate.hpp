// A formula expression evaluated the way a lesson's stage would evaluate it, for the suites of the
// formula language and its built-ins: its value, or the one-line message it fails with.
#pragma once

#include <string>
#include <string_view>

#include <boost/test/unit_test.hpp>

#include "qkv/error.hpp"
#include "qkv/formula.hpp"

namespace qkv::test {

// Errors name this place, as a lesson file's stage 'test' would.
inline const source_loc formula_place{"lesson.toml", 4, 11};

inline value ev(std::string_view text, const workspace& ws = {}) {
    eval_context ctx{formula_place, "test", std::string(text)};
    return evaluate(*parse_expression(text, formula_place), ws, ctx);
}

// The message evaluating `text` throws ("" when none).
inline std::string eval_error(std::string_view text, const workspace& ws = {}) {
    try {
        ev(text, ws);
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

// Whether `part` is in `s`; when not, says so in the log, so a failing check shows the message.
inline bool contains(const std::string& s, const std::string& part) {
    if (s.find(part) != std::string::npos) return true;
    BOOST_TEST_MESSAGE("'" << s << "' lacks '" << part << "'");
    return false;
}

}  // namespace qkv::test
