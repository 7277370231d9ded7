// Generating a scenario for a learner's own sentence, and writing any scenario back as TOML.
// Numbers are rounded to two decimals through double, exactly as the TOML reader will parse
// them, so a written file reads back to the very same floats.
#include "qkv/scenario_gen.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "qkv/control_text.hpp"
#include "qkv/error.hpp"
#include "qkv/kernels.hpp"
#include "qkv/utf8.hpp"

namespace qkv {
namespace {

constexpr std::size_t max_tokens = 64;

constexpr std::size_t max_d_model = 1024;

// k / 100 as the nearest double, then float: the same steps strtod and the loader take.
float two_decimals(float x) {
    double k = std::round(static_cast<double>(x) * 100.0);
    float out = static_cast<float>(k / 100.0);
    return out == 0.0f ? 0.0f : out;  // no "-0.00" on paper
}

matrix rounded(matrix m, float scale) {
    for (float& x : m.data) x = two_decimals(x * scale);
    return m;
}

// A TOML basic string: quotes, backslashes and control characters escaped.
// A TOML basic string; every control (C0, DEL, C1 and the bidi controls, control_text.hpp) as a
// \uXXXX escape, so the file shows nothing raw when it is printed and reads back the same.
std::string toml_string(std::string_view s) {
    std::string out = "\"";
    for (std::size_t i = 0; i < s.size();) {
        const control_at k = find_control_at(s, i);
        if (k.length) {
            out += fmt::format("\\u{:04X}", k.code);
            i += k.length;
            continue;
        }
        if (s[i] == '"' || s[i] == '\\') out += '\\';
        out += s[i++];
    }
    return out + '"';
}

std::string string_array(const std::vector<std::string>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + toml_string(v[i]);
    return out + "]";
}

// Two decimals when that is the whole number (a generated scenario); otherwise nine significant
// digits, which always read back to the same float.
std::string number_toml(float x) {
    if (two_decimals(x) == x) return fmt::format("{:.2f}", x);
    std::string s = fmt::format("{:.9g}", x);
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";  // stays a TOML float
    return s;
}

// Rows one per line, columns aligned: what a learner copies onto paper. Each number is formatted
// once (a [512, 512] weight is a quarter of a million of them) and padded to the widest.
std::string matrix_toml(const std::string& name, const matrix& m) {
    std::vector<std::string> numbers;  // [rows * cols], row-major as m.data
    numbers.reserve(m.data.size());
    std::size_t w = 1;
    for (float x : m.data) w = std::max(w, numbers.emplace_back(number_toml(x)).size());
    std::string out = fmt::format("{} = [  # [{}, {}]\n", name, m.rows, m.cols);
    out.reserve(out.size() + m.rows * (m.cols * (w + 2) + 4) + 2);
    for (std::size_t r = 0; r < m.rows; ++r) {
        out += "  [";
        for (std::size_t c = 0; c < m.cols; ++c) {
            const std::string& x = numbers[r * m.cols + c];
            if (c) out += ", ";
            out.append(w - x.size(), ' ');  // ASCII: a character is a column
            out += x;
        }
        out += "],\n";
    }
    return out + "]\n";
}

// One shell word, for the comment that says how a scenario was made: '…', or $'…' with \xNN and
// \uNNNN when the text holds a control — a comment may hold none (TOML forbids them there, and a
// terminal would obey them).
std::string shell_quoted(std::string_view s) {
    std::string out;
    if (first_control(s).length == 0 && s.find('\t') == std::string_view::npos) {
        for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
        return "'" + out + "'";
    }
    for (std::size_t i = 0; i < s.size();) {
        const control_at k = find_control_at(s, i);
        if (k.length) {
            out += escaped_control(k);
            i += k.length;
            continue;
        }
        if (s[i] == '\'' || s[i] == '\\') out += '\\';
        out += s[i++];
    }
    return "$'" + out + "'";
}

}  // namespace

namespace {

// Every space Unicode has, not only ASCII's: a sentence typed with the ideographic space U+3000 of
// a Chinese keyboard is split there too, and one of U+3000 alone has no token.
bool is_space(char32_t c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
           c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

}  // namespace

std::vector<std::string> split_tokens(std::string_view sentence) {
    std::vector<std::string> out;
    std::string cur;
    for (std::size_t i = 0; i < sentence.size();) {
        const utf8::decoded d = utf8::decode(sentence, i);
        if (d.ok && is_space(d.code)) {
            if (!cur.empty()) out.push_back(std::move(cur)), cur.clear();
        } else {
            cur.append(sentence.substr(i, d.length));
        }
        i += d.length;
    }
    if (!cur.empty()) out.push_back(std::move(cur));
    return out;
}

namespace {

// FNV-1a: a fixed, portable hash, so a student's seed is the same on every machine and build.
std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 14695981039346656037ull) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

}  // namespace

scenario student_variant(const scenario& own, std::string_view student) {
    scenario out = own;
    out.name = fmt::format("{} · {}", own.name, student);
    std::uint64_t seed = fnv1a(student) >> 8;  // leaves room for the per-matrix streams below
    for (auto& [name, m] : out.matrices) {
        // X and X_src are embeddings, N(0, 1); a weight W [r, c] keeps Q's entries of order one
        float scale = name.starts_with("X") ? 1.0f : 1.0f / std::sqrt(static_cast<float>(m.rows));
        m = rounded(kernels::randn(m.rows, m.cols, fnv1a(name, seed)), scale);
    }
    return out;
}

std::vector<std::size_t> choice_order(std::size_t count, std::string_view exercise_id, std::string_view student) {
    std::vector<std::size_t> order(count);
    for (std::size_t i = 0; i < count; ++i) order[i] = i;
    if (student.empty()) return order;
    std::uint64_t x = fnv1a(student, fnv1a(exercise_id));
    for (std::size_t i = count; i > 1; --i) {  // Fisher–Yates on splitmix64: the same on every library
        x += 0x9e3779b97f4a7c15ull;
        std::uint64_t z = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        std::swap(order[i - 1], order[(z ^ (z >> 31)) % i]);
    }
    return order;
}

scenario generate_scenario(const scenario_spec& spec) {
    std::size_t n = spec.tokens.size(), d = spec.d_model;
    if (n == 0) throw input_error(said("--tokens: give at least one token, separated by spaces"));
    if (n > max_tokens) throw input_error(said("--tokens: {} tokens; at most {} fit on a screen", n, max_tokens));
    for (std::size_t i = 0; i < n; ++i)
        if (!utf8::valid(spec.tokens[i]))  // a token ends up in TOML and JSON, which allow nothing else
            throw input_error(said("--tokens: token {} is not valid UTF-8 (check the terminal's encoding)", i + 1));
    if (d < 1 || d > max_d_model) throw input_error(said("--d-model must be 1 to {}, not {}", max_d_model, d));
    if (spec.heads < 1 || d % spec.heads != 0)
        throw input_error(said("--heads {} must divide --d-model {}", spec.heads, d));

    // Each matrix has its own stream: seed·5 + k, so no two (seed, matrix) pairs share numbers.
    auto draw = [&](std::size_t rows, std::uint64_t k, float scale) {
        return rounded(kernels::randn(rows, d, spec.seed * 5 + k), scale);
    };
    std::map<std::string, std::size_t> row_of;  // token -> its row in the embedding table
    for (const auto& t : spec.tokens) row_of.emplace(t, row_of.size());
    matrix E = draw(row_of.size(), 0, 1.0f);  // E: [distinct tokens, d_model], in order of first use
    matrix X(n, d);                           // X: [n, d_model]
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < d; ++c) X(i, c) = E(row_of.at(spec.tokens[i]), c);

    scenario s;
    s.file = "";
    for (std::size_t i = 0; i < n; ++i) s.name += (i ? " " : "") + spec.tokens[i];
    s.tokens = spec.tokens;
    s.heads = spec.heads;
    s.matrices["X"] = std::move(X);
    // Variance 1/d_model keeps each entry of Q = X @ W_Q near N(0, 1), as a trained model's are.
    const float w_scale = 1.0f / std::sqrt(static_cast<float>(d));
    s.matrices["W_Q"] = draw(d, 1, w_scale);  // [d_model, d_model]
    s.matrices["W_K"] = draw(d, 2, w_scale);
    s.matrices["W_V"] = draw(d, 3, w_scale);
    s.matrices["W_O"] = draw(d, 4, w_scale);
    return s;
}

scenario at_size_of(const scenario& own, const scenario_spec& spec) {
    scenario_spec sized = spec;
    sized.d_model = own.matrices.at("X").cols;
    sized.heads = own.heads.value_or(1);
    scenario made = generate_scenario(sized);
    scenario out = own;
    out.name = fmt::format("{} · {}", own.name, made.name);
    out.tokens = made.tokens;
    out.matrices["X"] = std::move(made.matrices["X"]);
    return out;
}

std::string scenario_toml(const scenario& s, std::string_view comment) {
    std::string out;
    // a line of the comment each ("# …"); TOML allows no control character in a comment
    for (std::size_t at = 0; at < comment.size();) {
        const std::size_t end = std::min(comment.find('\n', at), comment.size());
        out += "# " + escape_controls(comment.substr(at, end - at)) + "\n";
        at = end + 1;
    }
    out += fmt::format("name = {}\ntokens = {}\n", toml_string(s.name), string_array(s.tokens));
    if (!s.source_tokens.empty()) out += fmt::format("source_tokens = {}\n", string_array(s.source_tokens));
    if (s.heads) out += fmt::format("heads = {}\n", *s.heads);
    if (s.causal) out += "causal = true\n";
    out += "\n[matrices]\n";
    // In the order of the pipeline, as a reader expects; anything else after, by name.
    static const std::vector<std::string> first{"X", "W_Q", "W_K", "W_V", "W_O", "X_src"};
    for (const auto& name : first)
        if (auto m = s.matrices.find(name); m != s.matrices.end()) out += matrix_toml(name, m->second);
    for (const auto& [name, m] : s.matrices)
        if (std::find(first.begin(), first.end(), name) == first.end()) out += matrix_toml(name, m);
    return out;
}

std::string spec_arguments(const scenario_spec& spec) {
    std::string sentence;
    for (std::size_t i = 0; i < spec.tokens.size(); ++i) sentence += (i ? " " : "") + spec.tokens[i];
    return fmt::format("--tokens {} --d-model {} --heads {} --seed {}", shell_quoted(sentence), spec.d_model, spec.heads,
                       spec.seed);
}

}  // namespace qkv
