// Private to src/report: what the bench reports (report_bench*.cpp) word alike — the mask, the
// machine's peak, an exponent that may be missing.
#pragma once

#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qkv/i18n.hpp"
#include "qkv/machine_peak.hpp"
#include "qkv/wrap.hpp"

namespace qkv::detail {

inline std::string mask_text(bool causal, lang l) {
    return causal ? tr(l, "causal mask") : tr(l, "no mask");
}

// "machine peak: 512-bit avx512 fused multiply-adds on 1 thread: 98.3 GFLOP/s\n"
inline std::string machine_peak_line(const bench::machine_peak& m, lang l) {
    return fmt::format(fmt::runtime(tr(l, "machine peak: {0}-bit {1} fused multiply-adds on {2} thread{4}: {3:.1f} GFLOP/s\n")),
                       m.isa.bits, m.isa.name, m.threads, m.gflops, m.threads == 1 ? "" : "s");
}

// "1.97", or "–" where there was nothing to fit
inline std::string exponent_text(const std::optional<double>& k) { return k ? fmt::format("{:.2f}", *k) : "–"; }

// A blank line, `line` wrapped to the terminal (continued two columns in), and a blank line: the
// growth exponents under a table. (Built with +=: GCC 12 takes "\n" + a temporary for an overlap.)
inline std::string set_apart(std::string_view line, std::size_t width) {
    std::string out = "\n";
    out += wrap_each_line(line, width, "  ");
    return out + "\n";
}

// the number, or null where there was nothing to fit
inline nlohmann::ordered_json number_or_null(const std::optional<double>& k) {
    return k ? nlohmann::ordered_json(*k) : nlohmann::ordered_json(nullptr);
}

inline nlohmann::ordered_json isa_json(const bench::vector_isa& isa) { return {{"name", isa.name}, {"bits", isa.bits}}; }

}  // namespace qkv::detail
