// A sentence worded in the language it is shown in: its message looked up, its values filled in.
#include "qkv/sentence.hpp"

namespace qkv {

sentence sentence::plain(std::string text) {
    sentence s;
    s.english_ = std::move(text);
    return s;
}

sentence sentence::worded(std::function<std::string(lang)> words) {
    sentence s;
    s.english_ = words(lang::en);
    s.words_ = std::move(words);
    return s;
}

std::string sentence::in(lang l) const {
    if (words_) return words_(l);
    if (!translated_) return english_;
    store values;
    for (const auto& v : values_) v(values, l);
    return fmt::vformat(tr(l, english_), values);
}

}  // namespace qkv
