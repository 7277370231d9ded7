// The peers' record read, and the cases `qkv bench` reports from it (report_peers.hpp).
#include "qkv/report_peers.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "qkv/error.hpp"
#include "qkv/report_bench.hpp"
#include "qkv/wrap.hpp"

namespace qkv::bench {

using json = nlohmann::ordered_json;

namespace {

// The cases the peers are held to (issue 44's targets): ONNX Runtime's fused MultiHeadAttention
// forward at 1.15×, PyTorch autograd's forward + backward at 1.25×, at the scripts' default size.
constexpr std::size_t case_n = 4096, case_d_model = 512, case_heads = 8;
struct case_entry {
    const char* peer;
    const char* pass;
    double target;
};
constexpr std::array<case_entry, 2> case_peers{{{"onnxruntime", "forward", 1.15}, {"pytorch", "forward+backward", 1.25}}};

std::string peer_name(const std::string& peer) {
    return peer == "onnxruntime" ? "ONNX Runtime" : peer == "pytorch" ? "PyTorch" : peer;
}

// What measures a case: the script with its options (--avx2 where qkv runs the avx2 kernels, as
// the scripts then hide AVX-512 from both sides).
std::string command_for(const std::string& peer, const std::string& attention, int threads, const std::string& kernels) {
    std::string out = peer == "onnxruntime"
                          ? fmt::format("/usr/bin/python3 bench/compare_ort.py --ort-dir DIR --attention {} --threads {} --rounds 5 --openblas-free",
                                        attention, threads)
                          : fmt::format("/usr/bin/python3 bench/compare_torch.py --backward --n {}{} --threads {}", case_n,
                                        attention == "causal" ? " --causal" : "", threads);
    return kernels == "avx2" ? out + " --avx2" : out;
}

// The JSON error's line: the lines before the byte it names, plus one.
int line_of_byte(std::string_view text, std::size_t byte) {
    const std::size_t end = std::min(byte == 0 ? 0 : byte - 1, text.size());
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

peer_row row_of(const json& r, std::size_t index, const std::string& path) {
    const source_loc at{path, 0, 0};
    auto text = [&](const char* field) {
        if (!r.contains(field) || !r[field].is_string())
            throw input_error(at, said("row {} of the peers' record: '{}' must be a string; move the file away, or measure again", index + 1, field));
        return r[field].get<std::string>();
    };
    auto number = [&](const char* field) {
        if (!r.contains(field) || !r[field].is_number())
            throw input_error(at, said("row {} of the peers' record: '{}' must be a number; move the file away, or measure again", index + 1, field));
        return r[field].get<double>();
    };
    auto whole = [&](const char* field, std::int64_t most) {
        if (!r.contains(field) || !r[field].is_number_integer() || r[field].get<std::int64_t>() < 1 || r[field].get<std::int64_t>() > most)
            throw input_error(at, said("row {} of the peers' record: '{}' must be a whole number from 1 to {}; move the file away, or measure again",
                                       index + 1, field, most));
        return r[field].get<std::int64_t>();
    };
    if (!r.is_object())
        throw input_error(source_loc{path, 0, 0}, said("row {} of the peers' record is not an object; move the file away, or measure again", index + 1));
    peer_row p;
    p.peer = text("peer"), p.peer_version = text("peer_version"), p.pass = text("pass"), p.attention = text("attention");
    p.threads = static_cast<int>(whole("threads", 4096));
    p.n = std::size_t(whole("n", std::int64_t{1} << 24)), p.d_model = std::size_t(whole("d_model", 65536)),
    p.heads = std::size_t(whole("heads", 65536));
    p.kernels = text("kernels"), p.cpu = text("cpu");
    p.qkv_ms = number("qkv_ms"), p.peer_ms = number("peer_ms");
    p.ratio = number("ratio"), p.ratio_low = number("ratio_low"), p.ratio_high = number("ratio_high");
    p.rounds = static_cast<int>(whole("rounds", 1000));
    if (r.contains("ratio_openblas_free")) p.ratio_openblas_free = number("ratio_openblas_free");
    p.when = text("when"), p.command = text("command");
    return p;
}

json row_json(const peer_row& p) {
    json j{{"peer", p.peer}, {"peer_version", p.peer_version}, {"pass", p.pass}, {"attention", p.attention},
           {"threads", p.threads}, {"n", p.n}, {"d_model", p.d_model}, {"heads", p.heads}, {"kernels", p.kernels},
           {"cpu", p.cpu}, {"qkv_ms", p.qkv_ms}, {"peer_ms", p.peer_ms}, {"ratio", p.ratio}, {"ratio_low", p.ratio_low},
           {"ratio_high", p.ratio_high}, {"rounds", p.rounds}};
    j["ratio_openblas_free"] = p.ratio_openblas_free ? json(*p.ratio_openblas_free) : json(nullptr);
    j["when"] = p.when;
    j["command"] = p.command;
    return j;
}

// Ahead of the target in every ratio measured (both of compare_ort.py's with --openblas-free).
bool ahead(const peer_case& c) {
    const peer_row& m = *c.measured;
    return m.ratio >= c.target && (!m.ratio_openblas_free || *m.ratio_openblas_free >= c.target);
}

// "ONNX Runtime 1.30.0, forward, full, 1 thread"
std::string case_words(const std::string& peer, const std::string& version, const std::string& pass,
                       const std::string& attention, int threads, lang l) {
    return fmt::format(fmt::runtime(tr(l, "{0}{1}, {2}, {3}, {4}")), peer_name(peer), version.empty() ? "" : " " + version,
                       pass == "forward" ? tr(l, "forward") : tr(l, "forward + backward"),
                       attention == "causal" ? tr(l, "causal") : tr(l, "full"), threads_text(threads));
}

// "1.29× (1.05–1.53 over 5 rounds; OpenBLAS free 1.27×)"
std::string ratio_words(const peer_row& m, lang l) {
    std::string out = fmt::format("{:.2f}×", m.ratio);
    std::vector<std::string> more;
    if (m.rounds > 1) more.push_back(fmt::format(fmt::runtime(tr(l, "{:.2f}–{:.2f} over {} rounds")), m.ratio_low, m.ratio_high, m.rounds));
    if (m.ratio_openblas_free) more.push_back(fmt::format(fmt::runtime(tr(l, "OpenBLAS free {:.2f}×")), *m.ratio_openblas_free));
    if (!more.empty()) out += fmt::format(" ({})", fmt::join(more, tr(l, "; ")));
    return out;
}

}  // namespace

std::vector<peer_row> parse_peer_record(std::string_view text, const std::string& path) {
    json record;
    try {
        record = json::parse(text);
    } catch (const json::parse_error& e) {
        throw input_error(source_loc{path, line_of_byte(text, e.byte), 0},
                          said("the peers' record is not JSON; move it away, or measure again (bench/compare_ort.py, bench/compare_torch.py)"));
    }
    if (!record.is_object() || !record.contains("version") || record["version"] != 1 || !record.contains("rows") || !record["rows"].is_array())
        throw input_error(source_loc{path, 0, 0}, said("not a version 1 record of the peers: it needs \"version\": 1 and \"rows\"; move it away, or measure again"));
    std::vector<peer_row> rows;
    for (std::size_t i = 0; i < record["rows"].size(); ++i) rows.push_back(row_of(record["rows"][i], i, path));
    return rows;
}

peers_view peers_for(const std::vector<peer_row>& rows, const std::string& kernels, const std::string& cpu,
                     std::optional<std::string> record) {
    peers_view v{kernels, cpu, std::move(record), {}, {}};
    std::vector<const peer_row*> mine;  // these kernels on this CPU, newest first
    for (const peer_row& r : rows)
        if (r.kernels == kernels && r.cpu == cpu) mine.push_back(&r);
    std::stable_sort(mine.begin(), mine.end(), [](const peer_row* a, const peer_row* b) { return a->when > b->when; });
    std::vector<const peer_row*> used;
    for (const case_entry& e : case_peers)
        for (const char* attention : {"full", "causal"})
            for (int threads : {1, 2}) {
                peer_case c{e.peer, e.pass, attention, threads, e.target, std::nullopt, command_for(e.peer, attention, threads, kernels)};
                for (const peer_row* r : mine)
                    if (r->peer == c.peer && r->pass == c.pass && r->attention == c.attention && r->threads == threads && r->n == case_n &&
                        r->d_model == case_d_model && r->heads == case_heads) {
                        c.measured = *r;
                        used.push_back(r);
                        break;
                    }
                v.cases.push_back(std::move(c));
            }
    for (const peer_row* r : mine)
        if (std::find(used.begin(), used.end(), r) == used.end()) v.others.push_back(*r);
    return v;
}

std::string peers_text(const peers_view& v, lang l, std::size_t width) {
    std::string out = fmt::format(fmt::runtime(tr(l, "Against the peers at n = {0}, d_model = {1}, h = {2}, with the {3} kernels on {4}")),
                                  case_n, case_d_model, case_heads, v.kernels, v.cpu.empty() ? tr(l, "this CPU") : v.cpu);
    out += v.record ? fmt::format(fmt::runtime(tr(l, " (kept in {}):")), *v.record) : tr(l, " (no folder to keep them in: set XDG_STATE_HOME):");
    out += "\n";
    for (const peer_case& c : v.cases) {
        std::string line = "- " + case_words(c.peer, c.measured ? c.measured->peer_version : "", c.pass, c.attention, c.threads, l) + ": ";
        if (c.measured)
            line += fmt::format(fmt::runtime(tr(l, "{0}, target {1:.2f}×: {2} ({3})")), ratio_words(*c.measured, l), c.target,
                                ahead(c) ? tr(l, "ahead") : tr(l, "not ahead"), c.measured->when.substr(0, 10));
        else
            line += fmt::format(fmt::runtime(tr(l, "not measured; {}")), c.command);
        out += line + "\n";
    }
    for (const peer_row& r : v.others)
        out += "- " + fmt::format(fmt::runtime(tr(l, "also {0}, n = {1}, d_model = {2}, h = {3}: {4} ({5})")),
                                  case_words(r.peer, r.peer_version, r.pass, r.attention, r.threads, l), r.n, r.d_model, r.heads,
                                  ratio_words(r, l), r.when.substr(0, 10)) + "\n";
    return "\n" + wrap_each_line(out, width, "  ");
}

json peers_json(const peers_view& v) {
    json j{{"kernels", v.kernels}, {"cpu", v.cpu}};
    j["record"] = v.record ? json(*v.record) : json(nullptr);
    j["cases"] = json::array();
    for (const peer_case& c : v.cases) {
        json one{{"peer", c.peer}, {"pass", c.pass}, {"attention", c.attention}, {"threads", c.threads}, {"n", case_n},
                 {"d_model", case_d_model}, {"heads", case_heads}, {"target", c.target}};
        one["measured"] = c.measured ? row_json(*c.measured) : json(nullptr);
        one["ahead"] = c.measured ? json(ahead(c)) : json(nullptr);
        one["command"] = c.command;
        j["cases"].push_back(std::move(one));
    }
    j["others"] = json::array();
    for (const peer_row& r : v.others) j["others"].push_back(row_json(r));
    return j;
}

}  // namespace qkv::bench
