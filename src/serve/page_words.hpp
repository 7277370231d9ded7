// GET /api/words?lang=: the page's interface words in one language ({"lang", "next": "Next", …}).
#pragma once

#include <string>

#include "qkv/i18n.hpp"

namespace qkv::serve {

std::string page_words_json(lang l);

}  // namespace qkv::serve
