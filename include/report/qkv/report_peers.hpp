// What bench/compare_ort.py and bench/compare_torch.py measured on this machine, as `qkv bench`
// reports it: for the kernels the bench runs, each case the peers are held to — ONNX Runtime's
// forward and PyTorch's forward + backward, full and causal, on 1 and 2 threads, at n = 4096,
// d_model = 512, h = 8 — with what was measured, or the command that measures it. The scripts keep
// their rows in a JSON file (bench/peer_record.py says its fields); nothing here measures.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkv/i18n.hpp"

namespace qkv::bench {

// One row of the record: one case as a script measured it.
struct peer_row {
    std::string peer;          // "onnxruntime" or "pytorch"
    std::string peer_version;  // "1.30.0"
    std::string pass;          // "forward" or "forward+backward"
    std::string attention;     // "full" or "causal"
    int threads = 1;
    std::size_t n = 0, d_model = 0, heads = 0;
    std::string kernels;       // qkv's, as its bench said: "avx2"
    std::string cpu;           // /proc/cpuinfo's model name
    double qkv_ms = 0, peer_ms = 0;
    double ratio = 0, ratio_low = 0, ratio_high = 0;  // the peer's time ÷ qkv's: median, lowest, highest
    int rounds = 1;
    std::optional<double> ratio_openblas_free;         // compare_ort.py --openblas-free
    std::string when;          // "2026-11-28T04:10:00Z"
    std::string command;       // how the script was started
};

// The rows of a record's text; `path` names it in errors. Throws input_error naming the file and
// the line of a JSON error, or the row and field that is missing or of the wrong kind.
std::vector<peer_row> parse_peer_record(std::string_view text, const std::string& path);

// A case the peers are held to, and the row that measured it on this CPU with these kernels.
struct peer_case {
    std::string peer, pass, attention;
    int threads = 1;
    double target = 0;                // the least ratio that counts as ahead
    std::optional<peer_row> measured;
    std::string command;              // what measures it, when nothing did
};

// The cases for the bench's kernels on this CPU, from a record's rows (newest first where a case
// was measured twice), and the rows of those kernels and CPU at other sizes.
struct peers_view {
    std::string kernels, cpu;
    std::optional<std::string> record;  // the file, or none where no folder could hold one
    std::vector<peer_case> cases;
    std::vector<peer_row> others;
};
peers_view peers_for(const std::vector<peer_row>& rows, const std::string& kernels, const std::string& cpu,
                     std::optional<std::string> record);

// A blank line, then the cases one to a line, wrapped to `width`, in `l`.
std::string peers_text(const peers_view& v, lang l, std::size_t width);
nlohmann::ordered_json peers_json(const peers_view& v);

}  // namespace qkv::bench
