// Reading a matrix from text as numpy.savetxt writes it (comma- or whitespace-separated).
// Every problem names the file and the line, and nothing non-finite gets in.
#include "qkv/csv.hpp"
#include "qkv/file_read.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "qkv/error.hpp"
#include "qkv/utf8.hpp"

namespace qkv {
namespace {

// Split one line into fields at commas and/or runs of whitespace.
std::vector<std::string_view> fields_of(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    auto is_sep = [](char c) { return c == ',' || c == ' ' || c == '\t' || c == '\r'; };
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
        if (i >= line.size()) break;
        std::size_t start = i;
        while (i < line.size() && !is_sep(line[i])) ++i;
        out.push_back(line.substr(start, i - start));
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
        if (i < line.size() && line[i] == ',') {
            ++i;
            // "1,,2" or a trailing comma leaves an empty field: numpy would fail too.
            std::size_t j = i;
            while (j < line.size() && (line[j] == ' ' || line[j] == '\t' || line[j] == '\r')) ++j;
            if (j >= line.size() || line[j] == ',') out.push_back(std::string_view{});
        }
    }
    return out;
}

// A field short enough to quote in a one-line message (a binary file has 'fields' of kilobytes).
std::string clipped(std::string_view field) {
    if (field.size() <= 40) return std::string(field);
    return std::string(utf8::head(field, 40)) + "…";
}

float parse_cell(std::string_view field, const source_loc& where, std::size_t col) {
    if (field.empty()) throw input_error(where, said("column {} is empty", col));
    if (field.front() == '+') field.remove_prefix(1);
    float x = 0;
    auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), x);
    if (ec == std::errc::result_out_of_range) {
        // from_chars says out of range both ways: 1e39 is too large, but 1e-50 is a number too small
        // for a float, which is 0 as surely as TOML's reader makes it
        const double d = std::strtod(std::string(field).c_str(), nullptr);
        if (std::fabs(d) > 1.0)
            throw input_error(where, said("column {}: '{}' is too large for a float", col, clipped(field)));
        return static_cast<float>(d);
    }
    if (ec != std::errc{} || end != field.data() + field.size())
        throw input_error(where, said("column {}: '{}' is not a number", col, clipped(field)));
    if (!std::isfinite(x))
        throw input_error(where, said("column {}: '{}' is not finite (NaN and Inf are not allowed)", col, clipped(field)));
    return x;
}

}  // namespace

matrix parse_csv_matrix(std::string_view text, const std::string& origin) {
    std::vector<float> cells;
    std::size_t rows = 0, cols = 0;
    int line_no = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t nl = text.find('\n', pos);
        std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
        ++line_no;
        if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
        auto f = fields_of(line);
        if (f.empty()) continue;
        source_loc where{origin, line_no, 0};
        if (rows == 0) cols = f.size();
        if (f.size() != cols)
            throw input_error(where, said("row {} has {} values but row 1 has {} (ragged rows)",
                                                 rows + 1, f.size(), cols));
        for (std::size_t c = 0; c < f.size(); ++c) cells.push_back(parse_cell(f[c], where, c + 1));
        ++rows;
    }
    if (rows == 0) throw input_error(source_loc{origin, 0, 0}, said("no numbers in the file (empty matrix)"));
    return matrix(rows, cols, std::move(cells));
}

matrix read_csv_matrix(const std::string& path) {
    // X = "/dev/zero" or a FIFO would be read forever.
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
        throw input_error(source_loc{path, 0, 0}, said("not a regular file (a folder, a device or a pipe cannot hold a matrix)"));
    std::string text;
    if (auto no = read_file_capped(path, max_csv_bytes, text))
        throw input_error(source_loc{path, 0, 0}, *no == "not found" ? said("cannot open the file") : sentence::plain(*no));
    return parse_csv_matrix(text, path);
}

}  // namespace qkv
