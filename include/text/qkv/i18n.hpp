// The two languages, how the default is chosen, and the few interface words the renderers need
// ("rows", "row sums", ...). Lesson text lives in the lesson files, never here.
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

// Two ways, for two kinds of words, with one argument order (Chinese first where both are written):
// pick says a phrase where it is said, both languages side by side; tr looks up the shared
// vocabulary, the words several renderers use and the axis names lesson files give, by their
// English. Lesson text and teaching prose are neither: they live in files (lessons/, prose/).
inline std::string pick(lang l, std::string_view zh, std::string_view en) { return std::string(l == lang::zh ? zh : en); }

// A message in the language, by its English ("rows", "{} stages"): its translation in the
// language's catalogue (po/LANG.po, compiled into the program), the English itself for en or when
// the catalogue has none (the catalogues test fails on that). A message with {} stays a format
// string in every language (msgfmt --check holds the placeholders).
std::string_view tr(lang l, std::string_view english);

}  // namespace qkv
