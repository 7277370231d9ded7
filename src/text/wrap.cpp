// Prose wrapped to a screen's width: a paragraph becomes a list of atoms (a latin word, or one CJK
// character with the closing marks that follow it), each knowing whether a space came before it;
// lines are filled greedily with them.
#include "qkv/wrap.hpp"

#include <algorithm>
#include <cctype>

#include "qkv/display_width.hpp"
#include "qkv/prose.hpp"
#include "qkv/token_span.hpp"
#include "qkv/trim.hpp"
#include "qkv/utf8.hpp"

namespace qkv {
namespace {

struct atom {
    std::string text;
    bool space_before = false;
};

// Marks that may not start a line: they stay with the character before them.
bool closing_mark(std::string_view ch) {
    static constexpr std::string_view marks[] = {"，", "。", "、", "；", "：", "！", "？", "）", "」", "』", "》",
                                                 "】", "”", "’", "…", ",", ".", ";", ":", "!", "?", ")", "]"};
    return std::find(std::begin(marks), std::end(marks), ch) != std::end(marks);
}

// Marks that may not end a line: they go with the character after them, to the next line if it does
// ("源句（" above "source" reads as a bracket left open).
bool opening_mark(std::string_view ch) {
    static constexpr std::string_view marks[] = {"（", "「", "『", "《", "【", "“", "‘"};
    return std::find(std::begin(marks), std::end(marks), ch) != std::end(marks);
}

bool ends_with_opening_mark(std::string_view text) {
    for (std::string_view m : {"（", "「", "『", "《", "【", "“", "‘"})
        if (text.ends_with(m)) return opening_mark(m);
    return false;
}

// "n = 3" and "exp(m − m_new)" read badly split at the operator: it holds on to both neighbours
// (while the group stays short; a long formula still breaks).
std::vector<atom> glue_operators(std::vector<atom> in) {
    static constexpr std::string_view ops[] = {"=", "−", "-", "+", "×", "·", "≤", "≥", "<", ">", "→", "≈"};
    std::vector<atom> out;
    bool glue_next = false;
    for (atom& a : in) {
        bool op = std::find(std::begin(ops), std::end(ops), a.text) != std::end(ops);
        if ((op || glue_next) && !out.empty() && display_width(out.back().text) + display_width(a.text) < 24)
            out.back().text += (a.space_before ? " " : "") + a.text;
        else out.push_back(std::move(a));
        glue_next = op;
    }
    return out;
}

// "10 000" and "524 288" are one number written in groups of three: the space between the groups
// does not break a line ("n = 10 / 000").
std::vector<atom> glue_digit_groups(std::vector<atom> in) {
    auto digits = [](std::string_view t, std::size_t from, std::size_t count) {
        for (std::size_t k = from; k < from + count; ++k)
            if (k >= t.size() || !std::isdigit(static_cast<unsigned char>(t[k]))) return false;
        return true;
    };
    std::vector<atom> out;
    for (atom& a : in) {
        const bool group = a.space_before && digits(a.text, 0, 3) && !digits(a.text, 3, 1);
        if (group && !out.empty() && !out.back().text.empty() &&
            std::isdigit(static_cast<unsigned char>(out.back().text.back())))
            out.back().text += " " + a.text;
        else out.push_back(std::move(a));
    }
    return out;
}

bool wide_atom(const atom& a) {
    return display_width(std::string_view(a.text).substr(0, utf8::next(a.text, 0))) == 2;
}

// A short run of CJK characters between spaces or latin text is one token in a sentence ("the
// weight on 苹果's row", "行 苹果 的权重"): it stays whole, with a latin suffix written against it
// ("'s"). A longer run is Chinese prose, which may break between any two characters.
std::vector<atom> keep_tokens_whole(std::vector<atom> in) {
    std::vector<atom> out;
    for (std::size_t i = 0; i < in.size();) {
        std::size_t end = i + 1;
        if (wide_atom(in[i]))
            while (end < in.size() && wide_atom(in[end]) && !in[end].space_before) ++end;
        bool bounded = wide_atom(in[i]) && (i == 0 || in[i].space_before || !wide_atom(in[i - 1])) && end - i <= 4;
        atom merged = in[i];
        if (bounded) {
            for (std::size_t k = i + 1; k < end; ++k) merged.text += in[k].text;
            if (end < in.size() && !in[end].space_before && !wide_atom(in[end]) && display_width(in[end].text) < 12)
                merged.text += in[end++].text;  // 苹果's
        } else {
            end = i + 1;
        }
        out.push_back(std::move(merged));
        i = end;
    }
    return out;
}

// The length of the token span (token_span.hpp) that starts text, or 0.
std::size_t span_at(std::string_view text) {
    if (!text.starts_with(token_span_open)) return 0;
    std::size_t close = text.find(token_span_close);
    return close == std::string_view::npos ? 0 : close + token_span_close.size();
}

std::vector<atom> atoms_of(std::string_view text) {
    std::vector<atom> out;
    bool space = false, last_wide = false;
    int open = 0;  // inside a short "[3, 4]", whose spaces do not break a line
    for (std::size_t i = 0; i < text.size();) {
        if (std::size_t span = span_at(text.substr(i))) {  // a token is one atom: “苹果” never splits
            std::string shown = plain_tokens(text.substr(i, span));
            if (!space && !out.empty()) out.back().text += shown;
            else out.push_back({std::move(shown), space});
            i += span, last_wide = false, space = false;
            continue;
        }
        const std::size_t n = utf8::next(text, i) - i;
        std::string_view ch = text.substr(i, n);
        i += n;
        if (ch == " " || ch == "\t") {
            space = true;
            continue;
        }
        bool wide = display_width(ch) == 2;
        bool in_shape = open > 0 && !out.empty() && out.back().text.size() < 32;
        if (in_shape && space) out.back().text += ' ';
        // Latin letters run on into a word; a CJK character is an atom of its own.
        const bool after_opening = !space && !out.empty() && ends_with_opening_mark(out.back().text);
        if (!out.empty() && (in_shape || after_opening || (!space && (closing_mark(ch) || (!wide && !last_wide)))))
            out.back().text += ch;
        else out.push_back({std::string(ch), space});
        if (ch == "[") ++open;
        if (ch == "]" && open > 0) --open;
        last_wide = wide, space = false;
    }
    return glue_operators(glue_digit_groups(keep_tokens_whole(std::move(out))));
}

// An atom wider than a whole line, cut into pieces that fit.
std::vector<std::string> cut(std::string_view s, std::size_t width) {
    std::vector<std::string> out(1);
    std::size_t used = 0;
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8::next(s, i) - i;
        std::size_t w = display_width(s.substr(i, n));
        if (used + w > width && used > 0) out.emplace_back(), used = 0;
        out.back() += s.substr(i, n), used += w, i += n;
    }
    return out;
}

}  // namespace

std::vector<std::string> wrap_paragraph(std::string_view text, std::size_t width, std::string_view indent) {
    width = std::max<std::size_t>(width, display_width(indent) + 8);
    std::vector<std::string> lines;
    std::string line;
    std::size_t used = 0;
    auto start_line = [&] {
        lines.push_back(std::move(line));
        line = std::string(indent), used = display_width(indent);
    };
    for (const atom& a : atoms_of(text)) {
        std::size_t w = display_width(a.text);
        std::size_t gap = a.space_before && used > 0 ? 1 : 0;
        bool line_empty = line.size() == (lines.empty() ? 0 : indent.size());
        if (!line_empty && used + gap + w > width) start_line(), gap = 0;
        else if (line_empty) gap = 0;
        if (used + w > width) {  // longer than a line: cut it
            auto pieces = cut(a.text, width - std::max(used, display_width(indent)));
            for (std::size_t k = 0; k < pieces.size(); ++k) {
                if (k) start_line();
                line += pieces[k], used += display_width(pieces[k]);
            }
            continue;
        }
        line += std::string(gap, ' ') + a.text, used += gap + w;
    }
    lines.push_back(std::move(line));
    return lines;
}

namespace {

std::size_t indent_of(std::string_view l) {
    std::size_t a = l.find_first_not_of(" \t");
    return a == std::string_view::npos ? l.size() : a;
}

// "1. ", "12. ", "- ", "* ", "• ": the width of the marker with its space, or 0.
std::size_t list_marker(std::string_view l) {
    if (l.starts_with("- ") || l.starts_with("* ")) return 2;
    if (l.starts_with("• ")) return 2;
    std::size_t d = 0;
    while (d < l.size() && d < 3 && l[d] >= '0' && l[d] <= '9') ++d;
    if (d > 0 && l.substr(d).starts_with(". ")) return d + 2;
    return 0;
}

}  // namespace

std::vector<std::string> reflow(std::string_view text, std::size_t width) {
    std::vector<std::string> out, joined;  // joined: the lines of the paragraph or item being read
    std::string indent;                    // the item's hanging indent ("" for a paragraph)
    bool blank_pending = false;
    auto flush = [&] {
        if (joined.empty()) return;
        auto lines = wrap_paragraph(detail::join_lines(joined), width, indent);
        out.insert(out.end(), lines.begin(), lines.end());
        joined.clear();
    };
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = std::min(text.find('\n', start), text.size());
        std::string_view l = text.substr(start, end - start);
        start = end + 1;
        std::size_t in = indent_of(l);
        if (in == l.size()) {  // a blank line ends the paragraph
            flush();
            blank_pending = !out.empty();
            continue;
        }
        bool continues_item = !joined.empty() && !indent.empty() && in == indent.size();
        if (in > 0 && !continues_item) {  // a worked example or code: its own line, its own indent
            flush();
            std::string lead(l.substr(0, in)), body = plain_tokens(trim(l));
            if (blank_pending) out.emplace_back(), blank_pending = false;
            if (in + display_width(body) <= width) {  // as written: its spacing may align columns
                out.push_back(lead + body);
                continue;
            }
            for (auto& w : wrap_paragraph(body, width > in ? width - in : 1, "  ")) out.push_back(lead + w);
            continue;
        }
        // As in Markdown, a numbered item interrupts a running paragraph only when it is item 1:
        // "d_k =\n4. The backward…" is a number that ended up at the start of a line (a quote
        // filled in), not item 4 of a list.
        std::size_t marker = in == 0 ? list_marker(l) : 0;
        bool in_paragraph = !joined.empty() && indent.empty();
        if (marker && in_paragraph && std::isdigit(static_cast<unsigned char>(l[0])) && !l.starts_with("1. ")) marker = 0;
        if (in == 0 && (marker || indent.size())) flush(), indent.clear();
        if (blank_pending) out.emplace_back(), blank_pending = false;
        if (marker) indent.assign(marker, ' ');
        joined.emplace_back(trim(l));
    }
    flush();
    return out;
}

std::string reflowed(std::string_view text, std::size_t width) {
    std::string out;
    for (const std::string& line : reflow(text, width)) out += line + "\n";
    return out;
}

std::string wrap_each_line(std::string_view text, std::size_t width, std::string_view indent) {
    std::string out;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        for (const std::string& line : wrap_paragraph(text.substr(at, end - at), width, indent)) out += line + "\n";
        at = end + 1;
    }
    return out;
}

}  // namespace qkv
