// The two languages, how the default is chosen, and the interface's words in them: every label,
// unit and heading qkv shows is a message of the catalogues (po/LANG.po) looked up by tr. Lesson
// text lives in the lesson files, never here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace qkv {

enum class lang { zh, en };

// "zh" / "en"
std::string_view lang_code(lang l);

// Parse "zh" or "en" (also "zh_CN.UTF-8" style): nullopt when it is neither.
std::optional<lang> parse_lang(std::string_view s);

// The default language: QKV_LANG, then LC_ALL, LC_MESSAGES, LANG (the first one set and
// non-empty decides: zh* gives zh, anything else en); en when none is set.
lang default_lang();

// A message in the language, by its English ("rows", "{} stages"): its translation in the
// language's catalogue (po/LANG.po, compiled into the program), the English itself for en or when
// the catalogue has none (the catalogues test fails on that). A message with {} stays a format
// string in every language (the catalogues test holds a translation to its message's {}).
std::string tr(lang l, std::string_view english);

// The English itself: marks a message that is looked up later (by tr, with a key known only at
// run time, such as an axis name a lesson file gives), so that the catalogues' extraction finds it.
constexpr std::string_view translatable(std::string_view english) { return english; }

}  // namespace qkv
