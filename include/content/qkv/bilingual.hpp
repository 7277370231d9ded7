// Text an author writes in both languages, { zh = "…", en = "…" }: titles, lesson text,
// questions, hints. toml_reader::text is the one place it is read; the text may quote the run
// (quote.hpp), filled in with fill_quotes where it is shown.
#pragma once

#include <string>

#include "qkv/error.hpp"
#include "qkv/i18n.hpp"

namespace qkv {

struct bilingual {
    std::string zh;
    std::string en;
    source_loc zh_at, en_at;  // where each text's first character is (quotes in it are placed from there)
    const std::string& in(lang l) const { return l == lang::zh ? zh : en; }
    const source_loc& at(lang l) const { return l == lang::zh ? zh_at : en_at; }
};

}  // namespace qkv
