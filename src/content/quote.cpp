// Filling lesson and exercise text from the run (quote.hpp): the text is split into literal parts
// and {…} parts; each quote is a formula expression (or one of three quote functions) evaluated on
// the workspace and formatted (quote_format.hpp); {if}/{else}/{end} keep or drop what they enclose.
#include "qkv/quote.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "qkv/formula.hpp"
#include "qkv/token_span.hpp"
#include "qkv/toml_file.hpp"
#include "qkv/trim.hpp"
#include "qkv/utf8.hpp"
#include "quote_format.hpp"
#include "quote_parts.hpp"

namespace qkv {
namespace {

using namespace quote_detail;

// --- evaluating a quote ---------------------------------------------------------------------------

// What a quote is evaluated with. Without a workspace, quotes are only parsed (syntax check).
struct quote_env {
    const workspace* ws = nullptr;
    std::string context;
    source_loc where;  // of the quote
    const std::vector<std::string>* token_rows = nullptr;  // with ws: whose row labels are the tokens
    filled_spans* filled = nullptr;                        // where each quote's words go, if asked
    quote_sources* sources = nullptr;                      // where each quoted number stands, if asked
};

[[noreturn]] void quote_error(const quote_env& env, std::string_view quote, const std::string& message) {
    std::string prefix = env.context.empty() ? "" : env.context + ", ";
    throw input_error(env.where, fmt::format("{}quote {{{}}}: {}", prefix, quote, message));
}

// The row labels of each value the lesson's token_rows names (X's, then X_src's), that it has.
std::vector<const std::vector<std::string>*> token_lists(const quote_env& env) {
    std::vector<const std::vector<std::string>*> out;
    for (const std::string& name : *env.token_rows)
        if (auto it = env.ws->find(name); it != env.ws->end() && !it->second.is_scalar()) out.push_back(&it->second.rows.names);
    return out;
}

// The tokens of the sentence, in the order {token(i)} counts them.
std::vector<std::string> tokens_of(const quote_env& env) {
    std::vector<std::string> out;
    for (const auto* list : token_lists(env)) out.insert(out.end(), list->begin(), list->end());
    return out;
}

// "苹果" (in double quotes) becomes the token's position, from 1, in X (or X_src: the first of the
// token rows that has it).
std::string resolve_labels(std::string_view expr, const quote_env& env) {
    std::string out;
    for (std::size_t i = 0; i < expr.size(); ++i) {
        if (expr[i] != '"') {
            out += expr[i];
            continue;
        }
        std::size_t close = expr.find('"', i + 1);
        if (close == std::string_view::npos) quote_error(env, expr, "a token in quotes (\"苹果\") is never closed");
        std::string label(expr.substr(i + 1, close - i - 1));
        i = close;
        if (!env.ws) {
            out += "1";
            continue;
        }
        std::size_t index = 0;
        for (const auto* names : token_lists(env))
            for (std::size_t k = 0; k < names->size() && !index; ++k)
                if ((*names)[k] == label) index = k + 1;
        if (!index) quote_error(env, expr, fmt::format("this sentence has no token \"{}\"", label));
        out += std::to_string(index);
    }
    return out;
}

// A formula expression of the quote, evaluated; its errors are the quote's.
value evaluate_text(std::string_view expr, const quote_env& env) {
    std::string resolved = resolve_labels(expr, env);
    try {
        expr_ptr e = parse_expression(resolved, env.where);
        if (!env.ws) return value::scalar(0);
        eval_context ctx;
        ctx.where = env.where;
        return evaluate(*e, *env.ws, ctx);
    } catch (const input_error& err) {
        quote_error(env, expr, err.message());
    }
}

// "name(a, b)" as a call of a quote function: (name, arguments), or nothing.
std::optional<std::pair<std::string, std::vector<std::string>>> quote_call(std::string_view t) {
    std::size_t open = t.find('(');
    if (open == std::string_view::npos || t.back() != ')') return std::nullopt;
    std::string name(trim(t.substr(0, open)));
    if (name != "shape" && name != "token" && name != "top") return std::nullopt;
    std::vector<std::string> args;
    int depth = 0;
    std::size_t start = open + 1;
    for (std::size_t i = open + 1; i + 1 < t.size(); ++i) {
        char c = t[i];
        if (c == '(' || c == '[') ++depth;
        if (c == ')' || c == ']') --depth;
        if (depth < 0) return std::nullopt;  // "shape(Q) @ (K)": the call ends early
        if (c == ',' && depth == 0) {
            args.emplace_back(trim(t.substr(start, i - start)));
            start = i + 1;
        }
    }
    if (depth != 0) return std::nullopt;
    args.emplace_back(trim(t.substr(start, t.size() - 1 - start)));
    return std::make_pair(name, args);
}

std::size_t index_arg(const value& v, std::size_t count, std::string_view quote, const char* what, const quote_env& env) {
    double x = v.is_scalar() ? v.number : (v.is_matrix() && v.mat().size() == 1 ? v.mat().data[0] : NAN);
    if (!integral(x) || x < 1 || x > static_cast<double>(count))
        quote_error(env, quote, fmt::format("{} must be a whole number from 1 to {}, got {}", what, count,
                                            std::isnan(x) ? "a matrix" : format_number(x, {})));
    return static_cast<std::size_t>(x) - 1;
}

// The token at i (from 0) of a sentence's list, as a quote.
quoted token_quote(const std::vector<std::string>& list, std::size_t i) {
    quoted q(list[i], std::nullopt);
    q.token_at = i + 1;
    q.token_repeated = std::count(list.begin(), list.end(), list[i]) > 1;
    return q;
}

quoted call_quote(const std::string& name, const std::vector<std::string>& args, std::string_view quote, const quote_env& env) {
    std::size_t want = name == "top" ? 2 : 1;
    if (args.size() != want || args.front().empty())
        quote_error(env, quote, name == "top" ? "top(A, i) takes a matrix and a row" : fmt::format("{}(…) takes one argument", name));
    std::vector<value> vals;
    for (const std::string& a : args) vals.push_back(evaluate_text(a, env));
    if (!env.ws) return {"", std::nullopt};
    if (name == "shape") return {vals[0].shape_str(), std::nullopt};
    if (name == "token") {
        std::size_t i = index_arg(vals[0], tokens_of(env).size(), quote, "the token's position", env);
        for (const auto* list : token_lists(env)) {  // the list it is in: X's tokens, else X_src's
            if (i >= list->size()) {
                i -= list->size();
                continue;
            }
            return token_quote(*list, i);
        }
        return {};  // not reached: index_arg counted the tokens of every list
    }
    if (!vals[0].is_matrix()) quote_error(env, quote, fmt::format("top(A, i): A must be a matrix, got {}", vals[0].shape_str()));
    const matrix& A = vals[0].mat();
    std::size_t r = index_arg(vals[1], A.rows, quote, "the row", env);
    // the first column tied with the row's largest to float precision (the rule of argmax): a token
    // that comes twice weighs the same at both places, whichever last bits the kernel left
    std::size_t best = 0;
    for (std::size_t c = 1; c < A.cols; ++c)
        if (A(r, c) > A(r, best)) best = c;
    for (std::size_t c = 0; c < best; ++c)
        if (A(r, best) - A(r, c) <= std::ldexp(std::fabs(A(r, best)), -16)) {
            best = c;
            break;
        }
    const auto& names = vals[0].cols.names;
    if (best < names.size() && !names[best].empty()) return token_quote(names, best);
    return {std::to_string(best + 1), std::nullopt};
}

// One side of a quote: "EXPR", "EXPR:FORMAT", or a quote function.
quoted quote_side(std::string_view quote, const quote_env& env) {
    std::string_view body = quote, format;
    if (std::size_t colon = quote.rfind(':'); colon != std::string_view::npos) {
        body = trim(quote.substr(0, colon));
        format = quote.substr(colon + 1);
    }
    std::optional<number_format> f = parse_format(format);
    if (!f) quote_error(env, quote, fmt::format("unknown format '{}' (write .2, .4e, % or .1%, d)", trim(format)));
    if (auto call = quote_call(trim(body))) return call_quote(call->first, call->second, quote, env);
    value v = evaluate_text(body, env);
    return env.ws ? format_value(v, *f) : quoted{};
}

// Two quotes are the same number, the same token (name and place: "the" at 1 is not "the" at 5),
// or the same text.
bool same_quote(const quoted& a, const quoted& b) {
    if (a.number && b.number) return *a.number == *b.number;
    if (a.token_at && b.token_at) return a.text == b.text && *a.token_at == *b.token_at;
    return a.text == b.text;
}

// A condition: one side (true when a number other than 0) or two sides compared.
bool condition_holds(std::string_view cond, const quote_env& env) {
    static const char* ops[] = {"==", "!=", "<=", ">=", "<", ">"};
    for (const char* op : ops) {
        std::size_t at = cond.find(op);
        if (at == std::string_view::npos) continue;
        std::string_view o = op;
        quoted a = quote_side(trim(cond.substr(0, at)), env);
        quoted b = quote_side(trim(cond.substr(at + o.size())), env);
        if (!env.ws) return false;
        if (o == "==" || o == "!=") return same_quote(a, b) == (o == "==");
        if (!a.number || !b.number) quote_error(env, cond, fmt::format("'{}' compares two numbers", o));
        if (o == "<=") return *a.number <= *b.number;
        if (o == ">=") return *a.number >= *b.number;
        if (o == "<") return *a.number < *b.number;
        return *a.number > *b.number;
    }
    quoted q = quote_side(cond, env);
    if (!env.ws) return false;
    if (!q.number) quote_error(env, cond, "a condition is a number (0 is false) or a comparison such as top(A, 1) == token(3)");
    return *q.number != 0;
}

// The {if}s open at a point of the text, innermost last: whether the text there is kept.
class open_ifs {
public:
    bool kept() const { return open_.empty() || open_.back().active; }
    void open(bool holds, std::size_t offset) { open_.push_back({kept() && holds, kept(), false, offset}); }
    void otherwise(std::size_t offset, const reporter& report) {
        if (open_.empty() || open_.back().seen_else)
            return report(offset, open_.empty() ? "{else} without an {if}" : "a second {else} for one {if}");
        open_.back().seen_else = true;
        open_.back().active = open_.back().outer && !open_.back().active;
    }
    void close(std::size_t offset, const reporter& report) {
        if (open_.empty()) report(offset, "{end} without an {if}");
        else open_.pop_back();
    }
    void finish(const reporter& report) const {
        for (const open_if& o : open_) report(o.offset, "an {if} without its {end}");
    }

private:
    struct open_if {
        bool active;  // the text inside is kept
        bool outer;   // the text around it is kept
        bool seen_else;
        std::size_t offset;
    };
    std::vector<open_if> open_;
};

// The places of `x` in the matrices the quote names (A_h in "max(A_h[2])"): the entries equal to
// it, at most eight, recorded as quote number `id`. Names are the words of the quote that are
// matrices or stacks of the workspace.
void record_sources(std::string_view quote, float x, std::size_t id, const quote_env& env) {
    auto word_char = [&](std::size_t k) { return std::isalnum(static_cast<unsigned char>(quote[k])) || quote[k] == '_'; };
    std::size_t found = 0;
    std::vector<std::string> seen;
    for (std::size_t i = 0; i < quote.size();) {
        if (!word_char(i)) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < quote.size() && word_char(j)) ++j;
        std::string name(quote.substr(i, j - i));
        i = j;
        if (std::isdigit(static_cast<unsigned char>(name[0])) || std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
        seen.push_back(name);
        auto it = env.ws->find(name);
        if (it == env.ws->end() || it->second.is_scalar()) continue;
        const value& v = it->second;
        for (std::size_t h = 0; h < v.mats.size(); ++h)
            for (std::size_t r = 0; r < v.mats[h].rows; ++r)
                for (std::size_t c = 0; c < v.mats[h].cols && found < 8; ++c)
                    if (v.mats[h](r, c) == x) env.sources->push_back({id, name, h, r, c}), ++found;
    }
}

// The filled text; with no workspace in `base`, only every part checked (errors thrown or reported).
std::string fill(std::string_view text, const source_loc& at, const quote_env& base, const reporter& report) {
    std::string out;
    open_ifs ifs;
    std::size_t numbers = 0;  // quoted so far (quote_source::quote)
    locator loc_at(at, text);
    for (const part& p : split_parts(text, report)) {
        quote_env env = base;
        env.where = loc_at(p.offset);
        const quote_env parse_only{nullptr, base.context, env.where};  // text that is not kept
        auto checked = [&](auto&& f) {
            try {
                f();
            } catch (const input_error& e) {
                if (base.ws) throw;
                report(p.offset, e.message());
            }
        };
        switch (p.k) {
        case part::kind::literal:
        case part::kind::constant:
            if (ifs.kept()) out += p.text;
            break;
        case part::kind::quote:
            checked([&] {
                if (!ifs.kept() && base.ws) return;
                quoted q = quote_side(p.text, ifs.kept() ? env : parse_only);
                if (q.token_at) {  // a token is set off as one: a renderer shows it as a token, never as marks
                    out += token_span(q.text, q.token_repeated ? *q.token_at : 0);
                    return;
                }
                if (base.filled && !q.text.empty()) base.filled->push_back({out.size(), q.text.size()});
                if (base.sources && base.ws && q.number && std::isfinite(*q.number))
                    record_sources(p.text, static_cast<float>(*q.number), numbers++, env);
                out += q.text;
            });
            break;
        case part::kind::if_: {
            bool holds = false;
            checked([&] { holds = condition_holds(p.text, ifs.kept() ? env : parse_only); });
            ifs.open(holds, p.offset);
            break;
        }
        case part::kind::else_: ifs.otherwise(p.offset, report); break;
        case part::kind::end: ifs.close(p.offset, report); break;
        }
    }
    ifs.finish(report);
    return out;
}

}  // namespace

std::vector<problem> quote_problems(std::string_view text, const source_loc& at) {
    std::vector<problem> out;
    locator loc_at(at, text);
    fill(text, at, quote_env{}, [&](std::size_t offset, std::string message) {
        out.push_back({loc_at(offset), std::move(message)});
    });
    return out;
}

std::string fill_quotes(std::string_view text, const source_loc& at, const workspace& ws, const std::string& context,
                        const std::vector<std::string>& token_rows, filled_spans* filled, quote_sources* sources) {
    if (filled) filled->clear();
    if (sources) sources->clear();
    return fill(text, at, quote_env{&ws, context, {}, &token_rows, filled, sources}, [&](std::size_t offset, std::string message) {
        throw input_error(locator(at, text)(offset), context.empty() ? message : context + ": " + message);
    });
}

std::vector<problem> bare_decimals(std::string_view text, const source_loc& at) {
    std::vector<problem> out;
    locator loc_at(at, text);
    for (const part& p : split_parts(text, [](std::size_t, std::string) {})) {
        if (p.k != part::kind::literal) continue;
        const std::string& s = p.text;
        for (std::size_t i = 0; i < s.size(); ++i) {
            auto digit = [&](std::size_t k) { return k < s.size() && std::isdigit(static_cast<unsigned char>(s[k])); };
            bool starts = digit(i) && (i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '.' || s[i - 1] == '_'));
            if (!starts) continue;
            std::size_t j = i;
            while (digit(j)) ++j;
            if (j < s.size() && s[j] == '.' && digit(j + 1)) {
                std::size_t k = j + 1;
                while (digit(k)) ++k;
                std::string number = s.substr(i, k - i);
                out.push_back({loc_at(p.offset + i),
                               fmt::format("warning: {} is written, not quoted: quote a number of the run ({{A[1, 3]}}); "
                                           "mark one true on every sentence {{={}}}", number, number)});
                j = k;
            }
            i = j;
        }
    }
    return out;
}

}  // namespace qkv
