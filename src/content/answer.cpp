// Parsing answers of each kind. Lenient about spelling (brackets, separators, fractions, case),
// strict about content: anything that is not clearly one answer is refused with the reason.
#include "qkv/answer.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "qkv/csv.hpp"
#include "qkv/error.hpp"
#include "qkv/file_check.hpp"
#include "qkv/file_read.hpp"
#include "qkv/i18n.hpp"
#include "qkv/trim.hpp"
#include "qkv/utf8.hpp"

namespace qkv {

// What a student types on a Chinese keyboard, as ASCII: full-width letters, digits and
// punctuation (Ｂ，（）［］：－) become their ASCII twins, 、 a comma, the ideographic space a space.
std::string typed_ascii(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const auto [cp, len, well_formed] = utf8::decode(text, i);  // a stray byte stays as it is
        if (cp >= 0xFF01 && cp <= 0xFF5E) out += static_cast<char>(cp - 0xFEE0);
        else if (cp == 0x3001 || cp == 0xFF64) out += ',';  // 、 ､
        else if (cp == 0x3000) out += ' ';
        else if (cp == 0x3010) out += '[';  // 【
        else if (cp == 0x3011) out += ']';  // 】
        else out += text.substr(i, len);
        i += len;
    }
    return out;
}

namespace {

// Short enough to quote in a one-line message.
std::string quoted(std::string_view s) {
    std::string one(utf8::head(s, 40));
    std::replace(one.begin(), one.end(), '\n', ' ');
    return fmt::format("'{}'{}", one, s.size() > 40 ? "…" : "");
}

// A plain decimal: from_chars accepts "2.5e-1" but not a leading '+' or '.', which people type.
std::optional<double> decimal(std::string_view s) {
    s = trim(s);
    bool neg = false;
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) neg = s.front() == '-', s.remove_prefix(1);
    std::string text(s);
    if (!text.empty() && text.front() == '.') text.insert(text.begin(), '0');
    if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text.front())))) return std::nullopt;
    double x = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(x)) return std::nullopt;
    return neg ? -x : x;
}

// Splits "100x100", "100×100", "100, 100", "100 100" into the numbers' texts.
std::vector<std::string> shape_fields(std::string_view s) {
    std::string spaced;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s.substr(i).starts_with("×")) {  // U+00D7, two bytes in UTF-8
            spaced += ' ';
            ++i;
        } else if (s[i] == ',' || s[i] == 'x' || s[i] == 'X' || s[i] == '*') {
            spaced += ' ';
        } else {
            spaced += s[i];
        }
    }
    std::istringstream in(spaced);
    std::vector<std::string> out;
    for (std::string f; in >> f;) out.push_back(f);
    return out;
}

// "array([[1, 2]], dtype=float32)" and "torch.Size([3, 4])", as Python prints them: what is
// inside the call.
std::string_view unwrapped_call(std::string_view s) {
    for (std::string_view prefix : {"array(", "np.array(", "tensor(", "torch.tensor(", "torch.Size("}) {
        if (!s.starts_with(prefix) || !s.ends_with(")")) continue;
        s = trim(s.substr(prefix.size(), s.size() - prefix.size() - 1));
        if (std::size_t d = s.rfind("dtype"); d != std::string_view::npos && s.find(']', d) == std::string_view::npos)
            s = trim(s.substr(0, s.rfind(',', d)));  // ", dtype=float32" after the last ']'
        return s;
    }
    return s;
}

// Inside "[[1, 2], [3, 4]]": the rows, each the text between one '[' and its ']'.
std::vector<std::string_view> bracket_rows(std::string_view inner, std::string_view whole, lang l) {
    std::vector<std::string_view> rows;
    std::size_t i = 0;
    while (i < inner.size()) {
        char c = inner[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',') { ++i; continue; }
        if (c != '[')
            throw input_error(fmt::format(fmt::runtime(tr(l, "{} is not a matrix: expected '[' to open a row")), quoted(whole)));
        std::size_t close = inner.find(']', i);
        if (close == std::string_view::npos || inner.substr(i + 1, close - i - 1).find('[') != std::string_view::npos)
            throw input_error(fmt::format(fmt::runtime(tr(l, "{} is not a matrix: a row is not closed with ']'")), quoted(whole)));
        rows.push_back(inner.substr(i + 1, close - i - 1));
        i = close + 1;
    }
    return rows;
}

// The cells of one row: separated by commas, or (as numpy prints, "[0.55 0.15 0.3]") by blanks.
std::vector<std::string_view> cells_of(std::string_view row) {
    std::vector<std::string_view> out;
    bool commas = row.find(',') != std::string_view::npos;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= row.size(); ++i) {
        bool cut = i == row.size() || (commas ? row[i] == ',' : (row[i] == ' ' || row[i] == '\t' || row[i] == '\n'));
        if (!cut) continue;
        std::string_view cell = trim(row.substr(start, i - start));
        if (!cell.empty() || (commas && i < row.size())) out.push_back(cell);  // "1,,2" keeps its empty cell
        start = i + 1;
    }
    return out;
}

std::vector<float> row_numbers(std::string_view row, std::size_t index, std::string_view whole, lang l) {
    std::vector<float> out;
    for (std::string_view cell : cells_of(row)) {
        try {
            double x = parse_number(cell, l);
            // 1e39 is a finite double but no float: it would become inf (and the cast is UB).
            if (std::fabs(x) > std::numeric_limits<float>::max()) throw input_error("too large for a float");
            out.push_back(static_cast<float>(x));
        } catch (const input_error&) {
            throw input_error(fmt::format(fmt::runtime(tr(l, "{} is not a matrix: row {} has {}, which is not a number")),
                                          quoted(whole), index + 1, quoted(cell)));
        }
    }
    return out;
}

matrix bracketed_matrix(std::string_view s, lang l) {
    if (s.size() < 2 || s.back() != ']')
        throw input_error(fmt::format(fmt::runtime(tr(l, "{} is not a matrix: it does not end with ']'")), quoted(s)));
    std::string_view inner = trim(s.substr(1, s.size() - 2));
    std::vector<std::string_view> rows;
    if (inner.empty() || inner.front() != '[') rows = {inner};  // one row: "[1, 2, 3]"
    else rows = bracket_rows(inner, s, l);
    if (rows.empty() || (rows.size() == 1 && trim(rows[0]).empty()))
        throw input_error(fmt::format(fmt::runtime(tr(l, "{} is not a matrix: it has no rows")), quoted(s)));
    std::vector<float> data;
    std::size_t cols = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        std::vector<float> cells = row_numbers(rows[r], r, s, l);
        if (r == 0) cols = cells.size();
        else if (cells.size() != cols)
            throw input_error(fmt::format(fmt::runtime(tr(l, "{} is not a matrix: row 1 has {} numbers, row {} has {}")),
                                          quoted(s), cols, r + 1, cells.size()));
        data.insert(data.end(), cells.begin(), cells.end());
    }
    return matrix(rows.size(), cols, std::move(data));
}

}  // namespace

std::string_view kind_name(answer_kind k) {
    switch (k) {
    case answer_kind::choice: return "choice";
    case answer_kind::shape: return "shape";
    case answer_kind::number: return "number";
    case answer_kind::matrix: return "matrix";
    }
    return "?";
}

std::optional<answer_kind> parse_kind(std::string_view s) {
    for (answer_kind k : {answer_kind::choice, answer_kind::shape, answer_kind::number, answer_kind::matrix})
        if (kind_name(k) == s) return k;
    return std::nullopt;
}

char parse_choice(std::string_view text, int count, lang l) {
    std::string ascii = typed_ascii(text);
    std::string_view s = trim(ascii);
    // "(b)", "B)", "B.", "B:", "[B]": the letter in the punctuation people put around it
    while (!s.empty() && (s.front() == '(' || s.front() == '[')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ')' || s.back() == ']' || s.back() == '.' || s.back() == ':' || s.back() == ',' ||
                          s.back() == ' '))
        s.remove_suffix(1);
    char last = static_cast<char>('A' + count - 1);
    if (s.size() == 1) {
        char c = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
        if (c >= 'A' && c <= last) return c;
    }
    throw input_error(fmt::format(fmt::runtime(tr(l, "{} is not a choice: answer with one letter, A to {}")),
                                  quoted(text), last));
}

std::vector<std::size_t> parse_shape(std::string_view text, lang l) {
    std::string ascii = typed_ascii(text);
    std::string_view s = unwrapped_call(trim(ascii));
    if (s.size() >= 2 && ((s.front() == '(' && s.back() == ')') || (s.front() == '[' && s.back() == ']')))
        s = s.substr(1, s.size() - 2);
    std::vector<std::string> fields = shape_fields(s);
    if (fields.empty())
        throw input_error(fmt::format(fmt::runtime(tr(l, "{} is not a shape: write it like (100, 64) or 100x64")), quoted(text)));
    std::vector<std::size_t> out;
    for (const std::string& f : fields) {
        std::size_t n = 0;
        auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), n);
        if (ec != std::errc() || end != f.data() + f.size() || n == 0)
            throw input_error(fmt::format(fmt::runtime(tr(l, "{} is not a shape: '{}' is not a positive whole number; write it like (100, 64)")),
                                          quoted(text), f));
        out.push_back(n);
    }
    return out;
}

double parse_number(std::string_view text, lang l) {
    std::string ascii = typed_ascii(text);
    std::string_view s = trim(ascii);
    if (auto slash = s.find('/'); slash != std::string_view::npos) {
        auto num = decimal(s.substr(0, slash)), den = decimal(s.substr(slash + 1));
        if (num && den && *den != 0.0) {
            // 1e308/1e-308: each part is a finite double, their quotient is not
            if (!std::isfinite(*num / *den))
                throw input_error(fmt::format(fmt::runtime(tr(l, "{} is too large: the quotient is beyond any number")), quoted(text)));
            return *num / *den;
        }
        if (num && den) throw input_error(fmt::format(fmt::runtime(tr(l, "{} divides by zero")), quoted(text)));
    } else if (auto x = decimal(s)) {
        return *x;
    }
    throw input_error(fmt::format(fmt::runtime(tr(l, "{} is not a number: write it like 0.25, 1/4 or 2.5e-1")), quoted(text)));
}

matrix parse_matrix(std::string_view text, lang l) {
    std::string ascii = typed_ascii(text);
    std::string_view s = unwrapped_call(trim(ascii));
    if (s.empty())
        throw input_error(tr(l, "the answer is empty: give a matrix like [[1, 2], [3, 4]] or a CSV file"));
    if (s.front() == '[') return bracketed_matrix(s, l);
    try {
        return parse_csv_matrix(s, "the answer");
    } catch (const input_error& e) {
        throw input_error(fmt::format(fmt::runtime(tr(l, "{} is not a matrix ({}); write it like [[1, 2], [3, 4]]")),
                                      quoted(text), e.message()));
    }
}

answer parse_answer(answer_kind k, std::string_view text, lang l) {
    answer a;
    a.kind = k;
    switch (k) {
    case answer_kind::choice: a.choice = parse_choice(text, 4, l); break;
    case answer_kind::shape: a.shape = parse_shape(text, l); break;
    case answer_kind::number: a.number = parse_number(text, l); break;
    case answer_kind::matrix: a.m = parse_matrix(text, l); break;
    }
    return a;
}

// An answer written out (a number, a shape, a letter) is a line: a file of one holds at most 1 MiB.
constexpr std::uint64_t max_answer_bytes = std::uint64_t{1} << 20;

answer read_answer_file(answer_kind k, const std::string& path, lang l) {
    if (auto no = unreadable_file(path))
        throw input_error(source_loc{path, 0, 0}, *no == "not found" ? tr(l, "answer file not found") : "answer file: " + *no);
    if (k == answer_kind::matrix) {
        answer a;
        a.kind = k;
        a.m = read_csv_matrix(path);
        return a;
    }
    std::string text;
    if (auto no = read_file_capped(path, max_answer_bytes, text)) throw input_error(source_loc{path, 0, 0}, "answer file: " + *no);
    try {
        return parse_answer(k, text, l);
    } catch (const input_error& e) {
        throw input_error(source_loc{path, 0, 0}, e.message());
    }
}

answer read_answer_beside(answer_kind k, const std::string& dir, const std::string& name, lang l) {
    std::string why, text;
    const int fd = open_inside(dir, name, why);
    if (fd < 0)
        throw input_error(source_loc{name, 0, 0}, fmt::format(fmt::runtime(tr(l, "answer file: {}")), why == "not found" ? tr(l, "not found") : why));
    std::optional<std::string> no = read_fd_capped(fd, k == answer_kind::matrix ? max_csv_bytes : max_answer_bytes, text);
    ::close(fd);
    if (no) throw input_error(source_loc{name, 0, 0}, fmt::format(fmt::runtime(tr(l, "answer file: {}")), *no));
    answer a;
    a.kind = k;
    if (k == answer_kind::matrix) {
        a.m = parse_csv_matrix(text, name);
        return a;
    }
    try {
        return parse_answer(k, text, l);
    } catch (const input_error& e) {
        throw input_error(source_loc{name, 0, 0}, e.message());
    }
}

std::string shape_text(const std::vector<std::size_t>& shape) {
    return fmt::format("[{}]", fmt::join(shape, ", "));
}

}  // namespace qkv
