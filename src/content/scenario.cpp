// Loading scenario files: tokens and matrices, given inline, as CSV files beside the scenario,
// or generated from a seed. Every check points at the file and line of the offending value.
#include "qkv/scenario.hpp"

#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include "qkv/toml_file.hpp"

#include "qkv/csv.hpp"
#include "qkv/file_check.hpp"
#include "qkv/error.hpp"
#include "qkv/kernels.hpp"
#include "qkv/lesson.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

float number_of(const std::string& file, const toml::node& n, const std::string& what) {
    double x = 0;
    if (auto i = n.as_integer()) x = static_cast<double>(i->get());
    else if (auto f = n.as_floating_point()) x = f->get();
    else throw input_error(loc_of(file, n), said("{}: expected a number", what));
    if (!std::isfinite(x)) throw input_error(loc_of(file, n), said("{}: NaN and Inf are not allowed", what));
    if (std::fabs(x) > 3.0e38) throw input_error(loc_of(file, n), said("{}: too large for a float", what));
    return static_cast<float>(x);
}

matrix inline_matrix(const std::string& file, const std::string& name, const toml::array& rows) {
    if (rows.empty()) throw input_error(loc_of(file, rows), said("matrix {} has no rows", name));
    std::vector<float> cells;
    std::size_t cols = 0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const toml::array* row = rows[r].as_array();
        if (!row) throw input_error(loc_of(file, rows[r]), said("matrix {}: row {} is not an array", name, r + 1));
        if (r == 0) cols = row->size();
        if (cols == 0) throw input_error(loc_of(file, *row), said("matrix {}: row {} is empty", name, r + 1));
        if (row->size() != cols)
            throw input_error(loc_of(file, *row), said("matrix {}: row {} has {} values but row 1 has {} (ragged rows)",
                                                              name, r + 1, row->size(), cols));
        for (std::size_t c = 0; c < cols; ++c)
            cells.push_back(number_of(file, (*row)[c], fmt::format("matrix {}, row {}, column {}", name, r + 1, c + 1)));
    }
    return matrix(rows.size(), cols, std::move(cells));
}

// X = { randn = [2, 512], seed = 1, scale = 0.044 }: N(0, 1) samples from qkv's generator, scaled.
matrix generated_matrix(const std::string& file, const std::string& name, const toml::table& spec) {
    for (auto&& [k, v] : spec)
        if (k != "randn" && k != "seed" && k != "scale")
            throw input_error(loc_of(file, v), said("matrix {}: unknown key '{}' (expected randn, seed, scale)", name, k.str()));
    const toml::array* dims = spec["randn"].as_array();
    if (!dims || dims->size() != 2 || !(*dims)[0].is_integer() || !(*dims)[1].is_integer())
        throw input_error(loc_of(file, spec), said("matrix {}: randn must be [rows, columns]", name));
    auto r = (*dims)[0].as_integer()->get(), c = (*dims)[1].as_integer()->get();
    if (r <= 0 || c <= 0) throw input_error(loc_of(file, *dims), said("matrix {}: sizes must be positive", name));
    if (!within_cell_limit(static_cast<std::size_t>(r), static_cast<std::size_t>(c)))
        throw input_error(loc_of(file, *dims), said("matrix {}: [{}, {}] is too large ({:.1f} GiB; at most 1 GiB)",
                                                           name, r, c, r * 4.0 * c / (1 << 30)));
    auto seed = spec["seed"].value<std::int64_t>();
    if (!seed || *seed < 0) throw input_error(loc_of(file, spec), said("matrix {}: needs seed = a non-negative integer", name));
    float scale = spec.contains("scale") ? number_of(file, *spec.get("scale"), fmt::format("matrix {}, scale", name)) : 1.0f;
    matrix m = kernels::randn(static_cast<std::size_t>(r), static_cast<std::size_t>(c), static_cast<std::uint64_t>(*seed));
    for (float& x : m.data) x *= scale;
    // N(0, 1) samples reach ±5: a scale near 3e38 makes them inf, which an inline number may not be
    for (float x : m.data)
        if (!std::isfinite(x))
            throw input_error(loc_of(file, *spec.get("scale")),
                              said("matrix {}: scale {} makes entries too large for a float (at most 3e38)", name, scale));
    return m;
}

matrix matrix_of(const std::string& file, const std::string& name, const toml::node& n) {
    if (auto a = n.as_array()) return inline_matrix(file, name, *a);
    if (auto t = n.as_table()) return generated_matrix(file, name, *t);
    if (auto s = n.as_string()) {
        fs::path p = fs::path(file).parent_path() / s->get();
        if (auto no = unreadable_file(p.string())) throw input_error(loc_of(file, n), said("matrix {}: file '{}' {}", name, p.string(), *no));
        return read_csv_matrix(p.string());
    }
    throw input_error(loc_of(file, n), said("matrix {}: expected an array of rows, a CSV file name, or {{ randn = [r, c], seed = s }}", name));
}

bool is_identifier(std::string_view s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

// The design's shapes: X is [n, d_model], and each projection, when given, is [d_model, d_model]
// (head i uses columns i·d_k … of W_Q, W_K, W_V and rows i·d_k … of W_O). A wrong one is refused
// here, at its own line, rather than by some lesson's formula, which would blame the lesson file.
void check_shapes(const scenario& s, const toml::table& mats) {
    const matrix& X = s.matrices.at("X");
    const std::size_t d_model = X.cols;
    for (const char* w : {"W_Q", "W_K", "W_V", "W_O"}) {
        auto it = s.matrices.find(w);
        if (it == s.matrices.end() || (it->second.rows == d_model && it->second.cols == d_model)) continue;
        throw input_error(loc_of(s.file, *mats.get(w)),
                          said("{} is {} but X is {}: {} must be [d_model, d_model] = [{}, {}]", w,
                                      shape_str(it->second), shape_str(X), w, d_model, d_model));
    }
}

// heads = h splits d_model into h heads of d_model / h columns each.
void check_heads(const scenario& s, const toml::node& heads) {
    const std::size_t d_model = s.matrices.at("X").cols;
    if (d_model % *s.heads != 0)
        throw input_error(loc_of(s.file, heads), said("heads ({}) must divide d_model ({})", *s.heads, d_model));
}

std::vector<std::string> token_list(const std::string& file, const char* key, const toml::array& a) {
    std::vector<std::string> out;
    for (auto& t : a) {
        if (!t.is_string()) throw input_error(loc_of(file, t), said("{} must be strings", key));
        out.push_back(t.as_string()->get());
    }
    return out;
}

// The second sequence comes whole: source_tokens and X_src together, one row per source token,
// as wide as X (W_K and W_V project both sequences).
void check_source(const scenario& s, const toml::table& mats) {
    auto x_src = s.matrices.find("X_src");
    bool has_tokens = !s.source_tokens.empty();
    if (x_src == s.matrices.end()) {
        if (has_tokens) throw input_error(loc_of(s.file, mats), said("source_tokens is given but [matrices] has no X_src (one row per source token)"));
        return;
    }
    auto where = loc_of(s.file, *mats.get("X_src"));
    if (!has_tokens) throw input_error(where, said("X_src needs 'source_tokens = [...]' (one token per row of X_src)"));
    if (x_src->second.rows != s.source_tokens.size())
        throw input_error(where, said("X_src has {} rows but there are {} source tokens", x_src->second.rows, s.source_tokens.size()));
    const matrix& X = s.matrices.at("X");
    if (x_src->second.cols != X.cols)
        throw input_error(where, said("X_src is {} but X is {}: both sequences need d_model = {} columns",
                                             shape_str(x_src->second), shape_str(X), X.cols));
}


// `--data induction`: data/induction.toml, when there is no file "induction" here.
std::string named_scenario(const std::string& given) {
    std::error_code ec;
    if (given.empty() || given.find_first_of("/.") != std::string::npos || fs::exists(given, ec)) return given;
    const fs::path named = fs::path(data_dir()) / (given + ".toml");
    return fs::exists(named, ec) ? named.string() : given;
}

}  // namespace

scenario load_scenario(const std::string& path) { return read_scenario(read_toml_file(named_scenario(path), translatable("scenario file"))); }

scenario read_scenario(const toml_document& file) {
    const std::string& path = file.file;
    const toml::table& doc = file.table;
    scenario s;
    s.file = path;
    for (auto&& [k, v] : doc)
        if (k != "name" && k != "tokens" && k != "source_tokens" && k != "heads" && k != "causal" && k != "matrices")
            throw input_error(loc_of(path, v),
                              said("unknown key '{}' (expected name, tokens, source_tokens, heads, causal, [matrices])", k.str()));
    s.name = fs::path(path).stem().string();  // without a name, the file's
    if (const toml::node* name = doc.get("name")) {
        if (!name->is_string())
            throw input_error(loc_of(path, *name), said("name must be a string, not {}", kind_of(*name)));
        s.name = name->as_string()->get();
    }
    const toml::node* tokens = doc.get("tokens");
    if (!tokens) throw input_error(source_loc{path, 0, 0}, said("missing 'tokens = [...]' (one token per row of X)"));
    if (!tokens->is_array())
        throw input_error(loc_of(path, *tokens), said("tokens must be an array of strings (one per row of X), not {}",
                                                             kind_of(*tokens)));
    s.tokens = token_list(path, "tokens", *tokens->as_array());
    if (auto src = doc.get("source_tokens")) {
        if (!src->is_array()) throw input_error(loc_of(path, *src), said("source_tokens must be an array of strings (one per row of X_src)"));
        s.source_tokens = token_list(path, "source_tokens", *src->as_array());
    }
    if (auto h = doc.get("heads")) {
        if (!h->is_integer() || h->as_integer()->get() < 1)
            throw input_error(loc_of(path, *h), said("heads must be a positive integer"));
        s.heads = static_cast<std::size_t>(h->as_integer()->get());
    }
    if (auto c = doc.get("causal")) {
        if (!c->is_boolean()) throw input_error(loc_of(path, *c), said("causal must be true or false, not {}", kind_of(*c)));
        s.causal = c->as_boolean()->get();
    }
    const toml::node* matrices = doc.get("matrices");
    if (!matrices) throw input_error(source_loc{path, 0, 0}, said("missing [matrices] table (at least X)"));
    const toml::table* mats = matrices->as_table();
    if (!mats)
        throw input_error(loc_of(path, *matrices), said("matrices must be a table ([matrices], then X = …), not {}",
                                                               kind_of(*matrices)));
    for (auto&& [k, v] : *mats) {
        std::string name(k.str());
        if (!is_identifier(name)) throw input_error(loc_of(path, v), said("'{}' is not a usable matrix name (letters, digits, _)", name));
        s.matrices[name] = matrix_of(path, name, v);
    }
    auto x = s.matrices.find("X");
    if (x == s.matrices.end()) throw input_error(loc_of(path, *mats), said("[matrices] has no X"));
    if (x->second.rows != s.tokens.size())
        throw input_error(loc_of(path, *mats->get("X")), said("X has {} rows but there are {} tokens", x->second.rows, s.tokens.size()));
    check_shapes(s, *mats);
    if (s.heads) check_heads(s, *doc.get("heads"));
    check_source(s, *mats);
    return s;
}

workspace initial_workspace(const scenario& s) {
    workspace ws;
    for (const auto& [name, m] : s.matrices) {
        labels rows, cols;
        if (name == "X") rows = {s.tokens, "tokens"}, cols.axis = "features";
        if (name == "X_src") rows = {s.source_tokens, "tokens"}, cols.axis = "features";
        ws[name] = value::of(m, rows, cols);
    }
    if (!ws.count("X_src")) ws["X_src"] = ws.at("X");  // no second sequence: it is the first one
    const matrix& X = s.matrices.at("X");
    ws["n"] = value::scalar(static_cast<float>(X.rows));
    ws["d_model"] = value::scalar(static_cast<float>(X.cols));
    ws["causal"] = value::scalar(s.causal ? 1.0f : 0.0f);
    if (s.heads) ws["h"] = value::scalar(static_cast<float>(*s.heads));
    return ws;
}

const char* scenario_key_of(const std::string& name) { return name == "h" ? "heads" : nullptr; }

}  // namespace qkv
