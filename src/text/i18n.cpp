// The language choice, and the interface's words looked up in its catalogues (po/LANG.po). Lesson
// text is never here: it lives in the lesson files.
#include "qkv/i18n.hpp"

#include <cstdlib>

#include "qkv/catalogue.hpp"

namespace qkv {

std::string_view lang_code(lang l) { return l == lang::zh ? "zh" : "en"; }

std::optional<lang> parse_lang(std::string_view s) {
    if (s.substr(0, 2) == "zh") return lang::zh;
    if (s.substr(0, 2) == "en") return lang::en;
    return std::nullopt;
}

lang default_lang() {
    if (const char* q = std::getenv("QKV_LANG"); q && *q) {
        if (auto l = parse_lang(q)) return *l;
    }
    // POSIX order of precedence: the first of these that is set and non-empty decides.
    for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
        const char* v = std::getenv(var);
        if (v && *v) return std::string_view(v).substr(0, 2) == "zh" ? lang::zh : lang::en;
    }
    return lang::en;
}

namespace {

// The words lesson files and renderers hand to tr at run time (axis names, a stack's items, a
// value's role), listed so that the catalogues hold them: tr finds any message, but xgettext only
// sees a literal.
[[maybe_unused]] constexpr std::string_view runtime_words[] = {
    translatable("tokens"),  translatable("queries"), translatable("keys"),    translatable("features"),
    translatable("heads"),   translatable("head"),    translatable("layers"),  translatable("layer"),
    translatable("samples"), translatable("sample"),  translatable("devices"), translatable("device"),
    translatable("input"),   translatable("output"),
};

}  // namespace

std::string tr(lang l, std::string_view english) {
    if (l == lang::en) return std::string(english);
    const char* t = catalogue_lookup(lang_code(l), english);
    return t ? std::string(t) : std::string(english);
}

}  // namespace qkv
