// A sentence worded when it is shown, in the language of whoever shows it. An error is found far
// from the --lang that chooses its words (a file reader, a formula), so it carries its English
// message (a format string of the catalogues) and what fills the {}, and the one place that prints
// it words it in the learner's language.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/args.h>
#include <fmt/format.h>

#include "qkv/i18n.hpp"

namespace qkv {

class sentence {
public:
    sentence() = default;
    // Text shown as it is in every language: what the user typed, a path, a message from elsewhere.
    static sentence plain(std::string text);
    // Words that a function gives for each language (a list joined with the language's "or").
    static sentence worded(std::function<std::string(lang)> words);

    // The sentence in `l`: its message's translation (tr) with each value filled in, a value that
    // is a sentence itself worded in `l` too. For en, what fmt::format gives on the English.
    std::string in(lang l) const;

    template <class... A>
    friend sentence said(std::string_view english, const A&... values);

private:
    using store = fmt::dynamic_format_arg_store<fmt::format_context>;
    std::string english_;
    bool translated_ = false;
    std::vector<std::function<void(store&, lang)>> values_;
    std::function<std::string(lang)> words_;
};

// A message of the catalogues and the values of its {}, worded later: said("no lesson '{}'", n).
// xgettext finds the English (po/catalogues.sh, keyword said).
template <class... A>
sentence said(std::string_view english, const A&... values) {
    sentence s;
    s.english_ = std::string(english);
    s.translated_ = true;
    [[maybe_unused]] auto keep = [&s](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, sentence>) s.values_.emplace_back([v](sentence::store& st, lang l) { st.push_back(v.in(l)); });
        else if constexpr (std::is_convertible_v<V, std::string_view>)
            s.values_.emplace_back([t = std::string(std::string_view(v))](sentence::store& st, lang) { st.push_back(t); });
        else s.values_.emplace_back([v](sentence::store& st, lang) { st.push_back(v); });
    };
    (keep(values), ...);
    return s;
}

}  // namespace qkv
