// Text an author writes in both languages, { zh = "…", en = "…" }: titles, lesson text,
// questions, hints. toml_reader::text is the one place it is read.
#pragma once

#include <string>

#include "qkv/i18n.hpp"

namespace qkv {

struct bilingual {
    std::string zh;
    std::string en;
    const std::string& in(lang l) const { return l == lang::zh ? zh : en; }
};

}  // namespace qkv
