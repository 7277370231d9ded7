// libFuzzer target: formula text, parsed and run on the 苹果很甜 workspace (data/apple.toml),
// its sub-steps recorded. Anything but input_error (a crash, UB, a leak, a hang) is a defect.
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "qkv/formula.hpp"
#include "qkv/scenario.hpp"
#include "qkv_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const qkv::workspace base =
        qkv::initial_workspace(qkv::load_scenario(std::string(QKV_SOURCE_ROOT) + "/data/apple.toml"));
    std::string_view text = qkv::fuzz::text_of(data, size);
    if (!qkv::fuzz::small_numbers(text)) return -1;
    try {
        qkv::formula f = qkv::parse_formula(text, {"fuzz.toml", 3, 11});
        for (const qkv::statement& st : f.statements) qkv::names_read(*st.rhs);
        qkv::workspace ws = base;
        std::vector<qkv::sub_step> steps;
        qkv::eval_context ctx{{}, "fuzz", "", &steps};
        qkv::run_formula(f, ws, ctx);
    } catch (const qkv::input_error&) {
    }
    return 0;
}
