// The interface's words in the learner's language: GNU gettext catalogues (po/LANG.po), compiled
// into the program and looked up by their English. tr (i18n.hpp) is the one way in; this header is
// what it reads and what the generated catalogues.cpp fills.
#pragma once

#include <span>
#include <string_view>

namespace qkv {

// The translation of `english` in the catalogue of language `code` ("zh"); nullptr when there is
// no such catalogue or it has no translation of that message.
const char* catalogue_lookup(std::string_view code, std::string_view english);

namespace detail {

// One compiled catalogue (a .mo file's bytes), as po/embed.py writes them into the program.
struct embedded_catalogue {
    std::string_view lang;
    std::string_view mo;
};
std::span<const embedded_catalogue> embedded_catalogues();

}  // namespace detail

}  // namespace qkv
