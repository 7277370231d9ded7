// Numbers as text, with the one rule on the sign of zero.
#include "qkv/number_text.hpp"

#include <cmath>

#include <fmt/format.h>

namespace qkv {

std::string number_text(double x, number_style s, int digits) {
    std::string out;
    switch (s) {
    case number_style::fixed: out = fmt::format("{:.{}f}", x, digits); break;
    case number_style::scientific: out = fmt::format("{:.{}e}", x, digits); break;
    case number_style::percent: out = fmt::format("{:.{}f}%", 100.0 * x, digits); break;
    case number_style::whole:  // llround of 1e30 is undefined (it gave -9223372036854775808): past 2^53 as %.0f
        out = std::fabs(x) < 9007199254740992.0 ? fmt::format("{}", static_cast<long long>(std::llround(x))) : fmt::format("{:.0f}", x);
        break;
    }
    // "-0.00", "-0.0%", "-0.0e+00": no digit but zeros, so the number shown is zero
    if (out.starts_with('-') && out.find_first_of("123456789") == std::string::npos) out.erase(0, 1);
    return out;
}

}  // namespace qkv
