// libFuzzer target: a lesson file, loaded as `qkv run` would (from a file, so line and column
// bookkeeping is exercised), then, when it loads, run on 苹果很甜 and rendered in every format.
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "qkv/lesson.hpp"
#include "qkv/render_html.hpp"
#include "qkv/render_json.hpp"
#include "qkv/render_markdown.hpp"
#include "qkv/render_text.hpp"
#include "qkv/scenario.hpp"
#include "qkv/trace.hpp"
#include "qkv_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const qkv::scenario apple = qkv::load_scenario(std::string(QKV_SOURCE_ROOT) + "/data/apple.toml");
    if (!qkv::fuzz::small_numbers(qkv::fuzz::text_of(data, size))) return -1;
    std::string path = qkv::fuzz::write_input("99-fuzz.toml", data, size);
    try {
        qkv::lesson l = qkv::load_lesson(path);
        for (qkv::lang language : {qkv::lang::en, qkv::lang::zh}) {
            qkv::run_result r = qkv::run_lesson(l, apple, language);
            qkv::render_options o;
            o.language = language;
            o.color = language == qkv::lang::zh;
            qkv::render_text(r.t, o);
            qkv::render_markdown(r.t, o);
            qkv::render_json(r.t);
            qkv::render_html({r.t}, o);
        }
    } catch (const qkv::input_error&) {
    }
    return 0;
}
