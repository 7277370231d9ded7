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

// The one way to say a thing in both languages where it is said: Chinese first, English second,
// as every file of qkv writes them. Lesson text is not said this way: it lives in lesson files.
inline std::string pick(lang l, std::string_view zh, std::string_view en) { return std::string(l == lang::zh ? zh : en); }

// An interface word or phrase in the language, looked up by its English text: the axis words
// that lesson files name ("queries", "keys", …) and the renderers' few fixed words. Keys are the English phrase itself
// ("rows", "columns", "row sums", "queries", ...); an unknown key comes back unchanged.
std::string_view tr(lang l, std::string_view key);

}  // namespace qkv
