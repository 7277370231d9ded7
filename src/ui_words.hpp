// The presenter's own interface words (its key list, its status line) are written here in both
// languages at once, beside each other, rather than as i18n keys. Private to src/.
#pragma once

#include <string_view>

#include "qkv/i18n.hpp"

namespace qkv::detail {

inline std::string_view say(lang l, std::string_view en, std::string_view zh) { return l == lang::zh ? zh : en; }

}  // namespace qkv::detail
