// The one reader of hand-written TOML: syntax errors become qkv's one-line errors with
// file:line:column, and the checks every loader makes (known keys, strings, text in zh and en)
// are written once, for the loaders that stop at the first problem and for `qkv validate`.
#include "qkv/toml_file.hpp"

#include <algorithm>
#include <filesystem>
#include <new>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "qkv/file_check.hpp"
#include "qkv/file_read.hpp"
#include "qkv/file_words.hpp"
#include "qkv/quote.hpp"
#include "qkv/utf8.hpp"

namespace qkv {

// As an input_error says it: controls escaped, a long word clipped (a path of 5 000 bytes).
std::string problem::str() const { return input_error(where, message).what(); }

std::string problem::in(lang l) const { return l == lang::en || !said ? str() : input_error(where, *said).in(l); }

source_loc loc_of(const std::string& file, const toml::node& n) {
    return {file, static_cast<int>(n.source().begin.line), static_cast<int>(n.source().begin.column)};
}

std::string_view kind_of(const toml::node& n) {
    switch (n.type()) {
        case toml::node_type::string: return "a string";
        case toml::node_type::integer: return "an integer";
        case toml::node_type::floating_point: return "a number with a decimal point";
        case toml::node_type::boolean: return "a boolean";
        case toml::node_type::array: return "an array";
        case toml::node_type::table: return "a table";
        case toml::node_type::date: return "a date";
        case toml::node_type::time: return "a time";
        case toml::node_type::date_time: return "a date-time";
        case toml::node_type::none: break;
    }
    return "nothing";
}

duplicate_key::duplicate_key(const source_loc& where, std::string key, std::string what)
    : input_error(where, what == "table" ? said("table {} is given twice", key) : what == "key" ? said("key {} is given twice", key)
                                                                                  : sentence::plain(fmt::format("{} {} is given twice", what, key))),
      key_(std::move(key)) {}

namespace {

// The line `line` (from 1) of the text, without its newline.
std::string_view line_of(std::string_view text, std::size_t line) {
    std::size_t start = 0;
    for (std::size_t n = 1; n < line && start != std::string_view::npos; ++n) {
        start = text.find('\n', start);
        if (start != std::string_view::npos) ++start;
    }
    if (start == std::string_view::npos || start > text.size()) return {};
    return text.substr(start, text.find('\n', start) - start);
}

// The byte where the character of `column` (from 1, as toml++ counts) starts.
std::size_t byte_at(std::string_view line, std::size_t column) {
    std::size_t i = 0;
    for (std::size_t c = 1; c < column && i < line.size(); ++c) i = utf8::next(line, i);
    return i;
}

std::string_view trimmed(std::string_view s) {
    const auto first = s.find_first_not_of(" \t"), last = s.find_last_not_of(" \t\r");
    return first == std::string_view::npos ? std::string_view{} : s.substr(first, last - first + 1);
}

// toml++ says a key given twice with the key garbled ("cannot redefine existing string '"3.3.1" '"
// for "3.1" twice): the key is read back from the line instead, as the author wrote it, and the
// place moved to its start. A value's error stands where its value starts, after "KEY ="; a
// table's at its header. Nullopt when the line does not read that way.
std::optional<duplicate_key> duplicate_of(const toml::parse_error& e, std::string_view text, const std::string& origin) {
    if (std::string_view(e.description()).find("cannot redefine existing") == std::string_view::npos) return std::nullopt;
    const std::string_view line = line_of(text, e.source().begin.line);
    const std::size_t at = byte_at(line, e.source().begin.column);
    if (trimmed(line).starts_with("[")) {  // [table] or [[array]] again
        const std::string_view header = trimmed(line.substr(0, line.find('#')));
        const int column = static_cast<int>(utf8::count(line.substr(0, line.find('['))) + 1);
        return duplicate_key(source_loc{origin, static_cast<int>(e.source().begin.line), column}, std::string(header), "table");
    }
    const std::size_t equals = line.substr(0, at).rfind('=');
    if (equals == std::string_view::npos) return std::nullopt;
    const std::size_t begin = line.substr(0, equals).find_last_of("{,") + 1;  // npos + 1 = 0: the line's start
    const std::string_view key = trimmed(line.substr(begin, equals - begin));
    if (key.empty()) return std::nullopt;
    const int column = static_cast<int>(utf8::count(line.substr(0, key.data() - line.data())) + 1);
    return duplicate_key(source_loc{origin, static_cast<int>(e.source().begin.line), column}, std::string(key), "key");
}

// toml++'s reasons most often met in a hand-written file, each as a message of the catalogues: the
// reason as the library writes it before ", saw '…'" (or whole), and what fills the message's {}.
struct toml_reason {
    std::string_view library;
    std::string_view message;
    std::string_view fill;
};

constexpr toml_reason toml_reasons[] = {
    {"expected comma or closing '}'", translatable("expected a comma or the closing {}"), "'}'"},
    {"expected comma or closing ']'", translatable("expected a comma or the closing {}"), "']'"},
    {"expected key or closing '}'", translatable("expected a key or the closing {}"), "'}'"},
    {"expected '='", translatable("expected {}"), "'='"},
    {"expected ']'", translatable("expected {}"), "']'"},
    {"expected ':'", translatable("expected {}"), "':'"},
    {"expected '-'", translatable("expected {}"), "'-'"},
    {"expected '.'", translatable("expected {}"), "'.'"},
    {"expected value", translatable("expected a value"), ""},
    {"expected value-terminator", translatable("expected a comma, the end of the line or a comment after the value"), ""},
    {"expected keys, tables, whitespace or comments", translatable("expected a key, a [table] or a comment"), ""},
    {"expected a comment or whitespace", translatable("expected a comment or the end of the line"), ""},
    {"expected decimal digit", translatable("expected a digit"), ""},
    {"expected digit", translatable("expected a digit"), ""},
    {"encountered end-of-file", translatable("the file ends before this is closed"), ""},
    {"could not determine value type", translatable("not a value TOML knows (a text needs its quotes)"), ""},
    {"unexpected control character", translatable("a control character"), ""},
    {"leading zeroes are prohibited", translatable("a number may not begin with 0"), ""},
    {"underscores must be followed by digits", translatable("an underscore in a number stands between two digits"), ""},
    {"underscores may only follow digits", translatable("an underscore in a number stands between two digits"), ""},
    {"values may not begin with underscores", translatable("an underscore in a number stands between two digits"), ""},
    {"expected key-value pair or closing '}', saw comma", translatable("a comma where a key or the closing {} belongs"), "'}'"},
    {"expected value or closing ']', saw comma", translatable("a comma where a value or the closing {} belongs"), "']'"},
    {"expected key-value pair, saw closing '}' (dangling comma)",
     translatable("a comma before the closing {}: an inline table ends without one"), "'}'"},
};

// Where toml++ was reading ("Error while parsing inline table: …"), as a message of the catalogues.
struct toml_scope {
    std::string_view library;
    std::string_view message;
};

constexpr toml_scope toml_scopes[] = {
    {"inline table", translatable("in an inline table { … }")},
    {"array", translatable("in an array [ … ]")},
    {"key-value pair", translatable("in a line KEY = VALUE")},
    {"value", translatable("in a value")},
    {"key", translatable("in a key")},
    {"table header", translatable("in a [table] header")},
    {"root table", translatable("between the tables")},
    {"string", translatable("in a string")},
    {"literal string", translatable("in a string")},
    {"comment", translatable("in a comment")},
    {"boolean", translatable("in true or false")},
    {"floating-point", translatable("in a number")},
    {"decimal integer", translatable("in a number")},
    {"binary integer", translatable("in a number")},
    {"octal integer", translatable("in a number")},
    {"hexadecimal integer", translatable("in a number")},
    {"date", translatable("in a date")},
    {"time", translatable("in a time")},
    {"date-time", translatable("in a date-time")},
};

// toml++'s description of a syntax error ("Error while parsing inline table: expected comma or
// closing '}', saw 'e'"), the library's English and not ours, worded for the learner: in English
// as the library says it; in another language where it was reading and the common reasons in the
// learner's words, with what it saw quoted, and a reason not among them quoted as the library's.
sentence toml_error_said(std::string description) {
    return sentence::worded([description](lang l) -> std::string {
        if (l == lang::en) return description;
        std::string_view rest = description, scope;
        constexpr std::string_view lead = "Error while parsing ";
        if (rest.starts_with(lead) && rest.find(": ") != std::string_view::npos) {
            scope = rest.substr(lead.size(), rest.find(": ") - lead.size());
            rest.remove_prefix(rest.find(": ") + 2);
        }
        std::string reason = fmt::format(fmt::runtime(tr(l, "\"{}\", as the TOML library says it")), rest);
        for (const toml_reason& r : toml_reasons) {
            const std::string_view saw = ", saw '";
            const bool whole = rest == r.library;
            const bool with_saw = rest.starts_with(r.library) && rest.substr(r.library.size()).starts_with(saw) && rest.ends_with("'");
            if (!whole && !with_saw) continue;
            reason = fmt::format(fmt::runtime(tr(l, r.message)), r.fill);
            if (with_saw) reason = fmt::format(fmt::runtime(tr(l, "{}, found {}")), reason, rest.substr(r.library.size() + saw.size() - 1));
            break;
        }
        for (const toml_scope& s : toml_scopes)
            if (scope == s.library) return fmt::format(fmt::runtime(tr(l, "TOML syntax error {}: {}")), tr(l, s.message), reason);
        return fmt::format(fmt::runtime(tr(l, "TOML syntax error: {}")), reason);
    });
}

// toml++ makes a table of each part of a dotted key and recurses through them: a key of 50 000
// parts overflows the stack. Arrays and inline tables it refuses past 256 levels; a key gets the
// same bound here, before the library sees the text, counting the levels its header, the dotted
// key it is the value of and the arrays and tables around it already take.
constexpr int max_levels = 256;

class key_depth {
public:
    key_depth(std::string_view text, const std::string& origin) : text_(text), origin_(origin) {}

    void check() {
        for (i_ = 0; i_ < text_.size(); ++i_) {
            const char c = text_[i_];
            if (c == '#') i_ = std::min(text_.find('\n', i_), text_.size()) - 1;
            else if (c == '"' || c == '\'') skip_string(c);
            else if (c == '.') dot();
            else if (c == '=') key_parts_ = parts_, parts_ = 1;
            else if (c == '[' || c == '{') open(c);
            else if (c == ']' || c == '}') close();
            else if (c == ',' || c == '\n') parts_ = 1, key_parts_ = 1;
            if (c != ' ' && c != '\t' && c != '[') line_blank_ = false;
            if (i_ < text_.size() && text_[i_] == '\n') line_start_ = i_ + 1, ++line_, line_blank_ = true;
        }
    }

private:
    void dot() {
        if (base_ + depth_ + ++parts_ <= max_levels) return;
        const int column = static_cast<int>(utf8::count(text_.substr(line_start_, i_ - line_start_))) + 1;
        throw input_error(source_loc{origin_, line_, column},
                          said("a key nested more than {} levels deep (its dotted parts, its header and the "
                                      "tables and arrays around it)", max_levels));
    }
    // A [header] or [[header]] starts a line outside any value; its parts are the base of the keys below.
    void open(char c) {
        if (c == '[' && open_.empty() && at_line_start()) {
            base_ = 0, parts_ = 1, in_header_ = true;
            return;
        }
        open_.push_back(key_parts_);
        depth_ += key_parts_;
        parts_ = 1, key_parts_ = 1;
    }
    void close() {
        if (in_header_ && open_.empty()) {
            if (i_ + 1 >= text_.size() || text_[i_ + 1] != ']') base_ = parts_, in_header_ = false, parts_ = 1;
            return;
        }
        if (open_.empty()) return;
        depth_ -= open_.back();
        open_.pop_back();
    }
    // Only blanks and '[' so far on this line (kept as the scan goes: looking back would make a
    // line of 100 000 '[' quadratic).
    bool at_line_start() const { return line_blank_; }
    // Past a string (a quoted key part or a value): '…', "…" with its escapes, or either tripled.
    void skip_string(char q) {
        const bool triple = text_.substr(i_, 3) == std::string(3, q);
        std::size_t k = i_ + (triple ? 3 : 1);
        for (; k < text_.size(); ++k) {
            if (text_[k] == '\\' && q == '"') {
                ++k;
            } else if (text_[k] == '\n') {
                if (!triple) break;  // a single-line string cut short: the parser says so
                line_start_ = k + 1, ++line_;
            } else if (text_[k] == q && (!triple || text_.substr(k, 3) == std::string(3, q))) {
                k += triple ? 2 : 0;
                break;
            }
        }
        i_ = std::min(k, text_.size() - 1);
        if (text_[i_] == '\n') --i_;  // the loop counts the line
    }

    std::string_view text_;
    const std::string& origin_;
    std::size_t i_ = 0, line_start_ = 0;
    int line_ = 1;
    std::vector<int> open_;  // the levels each open [ or { adds
    int depth_ = 0;          // their sum
    int base_ = 0;           // the parts of the last [header]
    int parts_ = 1;          // of the key (or value) being read
    int key_parts_ = 1;      // of the key before the last '='
    bool in_header_ = false;
    bool line_blank_ = true;
};

}  // namespace

toml::table parse_toml_text(std::string_view text, const std::string& origin) {
    key_depth(text, origin).check();
    try {
        return toml::parse(text, origin);
    } catch (const toml::parse_error& e) {
        if (auto twice = duplicate_of(e, text, origin)) throw *twice;
        throw input_error(source_loc{origin, static_cast<int>(e.source().begin.line), static_cast<int>(e.source().begin.column)},
                          toml_error_said(std::string(e.description())));
    }
}

toml_document read_toml_text(std::string_view text, const std::string& origin) {
    return {origin, std::string(text), parse_toml_text(text, origin)};
}

std::string read_text_file(const std::string& path, std::string_view what, std::uint64_t max_bytes) {
    std::string text;
    // "lesson file not found", "scenario file: a name too long …", "answer sheet: too large: …"
    if (auto no = unreadable_file(path); no || (no = read_file_capped(path, max_bytes, text)))
        throw input_error(source_loc{path, 0, 0}, *no == "not found" ? said("{} not found", said(what)) : said("{}: {}", said(what), said_of(*no)));
    return text;
}

toml_document read_toml_file(const std::string& path, std::string_view what, std::uint64_t max_bytes) {
    std::string text = read_text_file(path, what, max_bytes);
    try {
        return read_toml_text(text, path);
    } catch (const std::bad_alloc&) {  // within the cap, and still more than the memory there is
        throw input_error(source_loc{path, 0, 0}, said("{}: too large to read in the memory there is", said(what)));
    }
}

toml::table parse_toml_file(const std::string& path, std::string_view what, std::uint64_t max_bytes) {
    return read_toml_file(path, what, max_bytes).table;
}

toml_reader::toml_reader(const toml_document& doc, std::vector<problem>* collect) : file_(doc.file), collect_(collect) {
    std::istringstream in(doc.text);
    for (std::string l; std::getline(in, l);) lines_.push_back(l);
}

source_loc toml_reader::content_start(const toml::node& n) const {
    source_loc l = at(n);
    if (l.line < 1 || l.line > static_cast<int>(lines_.size())) return l;
    std::string_view text = lines_[l.line - 1];
    std::string_view rest = l.column >= 1 && l.column - 1 <= static_cast<int>(text.size()) ? text.substr(l.column - 1) : std::string_view{};
    if (rest.starts_with("\"\"\"") || rest.starts_with("'''")) {
        if (rest.size() == 3) return {file_, l.line + 1, 1};
        return {file_, l.line, l.column + 3};
    }
    return {file_, l.line, l.column + 1};
}

void toml_reader::report(source_loc where, std::string message) const {
    if (!collect_) throw input_error(std::move(where), std::move(message));
    collect_->push_back({std::move(where), std::move(message)});
}

// An error without a place (from deep in an evaluation) is placed at the file itself.
void toml_reader::record(const input_error& e) const {
    if (e.where().file.empty()) collect_->push_back({source_loc{file_, 0, 0}, e.message(), e.said_message()});
    else collect_->push_back({e.where(), e.message(), e.said_message()});
}

bool toml_reader::only_keys(const toml::table& t, std::initializer_list<std::string_view> known, std::string_view where) const {
    bool ok = true;
    for (auto&& [k, v] : t) {
        if (std::find(known.begin(), known.end(), k.str()) != known.end()) continue;
        report(at(v), fmt::format("{}: unknown key '{}' (expected one of: {})", where, k.str(), fmt::join(known, ", ")));
        ok = false;
    }
    return ok;
}

const toml::node* toml_reader::need(const toml::table& t, std::string_view key, std::string_view where) const {
    const toml::node* n = t.get(key);
    if (!n) report(at(t), fmt::format("{}: missing '{}'", where, key));
    return n;
}

std::optional<std::string> toml_reader::string(const toml::node& n, std::string_view what) const {
    if (!n.is_string()) {
        report(at(n), fmt::format("{} must be a string", what));
        return std::nullopt;
    }
    return n.as_string()->get();
}

std::optional<std::string> toml_reader::required_string(const toml::table& t, std::string_view key, std::string_view where) const {
    const toml::node* n = need(t, key, where);
    if (!n) return std::nullopt;
    return string(*n, fmt::format("{}: '{}'", where, key));
}

std::optional<bilingual> toml_reader::text(const toml::node& n, std::string_view what) const {
    const toml::table* t = n.as_table();
    if (!t) {
        report(at(n), fmt::format("{} must be a table {{ zh = \"…\", en = \"…\" }}", what));
        return std::nullopt;
    }
    bool ok = only_keys(*t, {"zh", "en"}, what);
    bilingual out;
    auto language = [&](std::string_view key, std::string_view name, source_loc& where) -> std::string {
        const toml::node* s = t->get(key);
        if (!s) report(at(*t), fmt::format("{}: the {} text is missing", what, name));
        auto text = s ? string(*s, fmt::format("{}: '{}'", what, key)) : std::nullopt;
        ok = ok && text;
        if (!text) return "";
        where = content_start(*s);
        for (problem& p : quote_problems(*text, where)) {
            report(p.where, fmt::format("{} ({}): {}", what, key, p.message));
            ok = false;
        }
        return *text;
    };
    out.zh = language("zh", "Chinese (zh)", out.zh_at);
    out.en = language("en", "English (en)", out.en_at);
    if (!ok) return std::nullopt;
    auto blank = [](const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; };
    if (blank(out.zh) || blank(out.en)) {
        report(at(*t), fmt::format("{}: zh and en must both be written", what));
        return std::nullopt;
    }
    return out;
}

}  // namespace qkv
