// The peers' record as `qkv bench` reads it (report_peers.hpp): a record written here by hand,
// which rows answer which case, the verdict against each target, the text and JSON, and a record
// that is not one refused naming the file and the line or the row.
#define BOOST_TEST_MODULE report_peers
#include <boost/test/unit_test.hpp>

#include <string>

#include "qkv/error.hpp"
#include "qkv/report_peers.hpp"

using namespace qkv;
using bench::parse_peer_record;

namespace {

// One row as bench/peer_record.py writes it, with the fields a test changes.
std::string row(const std::string& peer, const std::string& pass, const std::string& attention, int threads, int n,
                const std::string& kernels, const std::string& cpu, double ratio, const std::string& when,
                const std::string& extra = "") {
    return "{\"peer\": \"" + peer + "\", \"peer_version\": \"9.9\", \"pass\": \"" + pass + "\", \"attention\": \"" + attention +
           "\", \"threads\": " + std::to_string(threads) + ", \"n\": " + std::to_string(n) +
           ", \"d_model\": 512, \"heads\": 8, \"kernels\": \"" + kernels + "\", \"cpu\": \"" + cpu +
           "\", \"qkv_ms\": 100.0, \"peer_ms\": 129.0, \"ratio\": " + std::to_string(ratio) +
           ", \"ratio_low\": 1.05, \"ratio_high\": 1.53, \"rounds\": 5, " + extra + "\"when\": \"" + when +
           "\", \"command\": \"bench/compare_ort.py --avx2\"}";
}

std::string record(const std::vector<std::string>& rows) {
    std::string out = "{\"version\": 1, \"rows\": [\n";
    for (std::size_t i = 0; i < rows.size(); ++i) out += rows[i] + (i + 1 < rows.size() ? ",\n" : "\n");
    return out + "]}\n";
}

const bench::peer_case& case_of(const bench::peers_view& v, const std::string& peer, const std::string& attention, int threads) {
    for (const bench::peer_case& c : v.cases)
        if (c.peer == peer && c.attention == attention && c.threads == threads) return c;
    BOOST_FAIL("no case " << peer << " " << attention << " " << threads);
    return v.cases.front();
}

}  // namespace

BOOST_AUTO_TEST_CASE(each_case_takes_the_newest_row_of_these_kernels_on_this_cpu) {
    const auto rows = parse_peer_record(
        record({row("onnxruntime", "forward", "full", 1, 4096, "avx2", "Zen 3", 1.00, "2026-11-01T00:00:00Z"),
                row("onnxruntime", "forward", "full", 1, 4096, "avx2", "Zen 3", 1.29, "2026-11-28T00:00:00Z"),
                row("onnxruntime", "forward", "full", 2, 4096, "avx512", "Zen 3", 2.00, "2026-11-28T00:00:00Z"),   // other kernels
                row("onnxruntime", "forward", "causal", 1, 4096, "avx2", "Xeon", 2.00, "2026-11-28T00:00:00Z"),    // other CPU
                row("pytorch", "forward+backward", "causal", 2, 4096, "avx2", "Zen 3", 1.20, "2026-11-28T00:00:00Z"),
                row("pytorch", "forward", "full", 1, 4096, "avx2", "Zen 3", 3.00, "2026-11-28T00:00:00Z"),       // not a case
                row("onnxruntime", "forward", "full", 1, 1024, "avx2", "Zen 3", 1.10, "2026-11-28T00:00:00Z")}),  // another size
        "peers.json");
    BOOST_TEST(rows.size() == 7u);
    const bench::peers_view v = bench::peers_for(rows, "avx2", "Zen 3", std::string("peers.json"));
    // ONNX Runtime forward and PyTorch forward + backward, full and causal, 1 and 2 threads
    BOOST_TEST(v.cases.size() == 8u);
    const auto& ort_full_1 = case_of(v, "onnxruntime", "full", 1);
    BOOST_TEST_REQUIRE(ort_full_1.measured.has_value());
    BOOST_TEST(ort_full_1.measured->ratio == 1.29);
    BOOST_TEST(ort_full_1.target == 1.15);
    BOOST_TEST(!case_of(v, "onnxruntime", "full", 2).measured.has_value(), "avx512's row is not avx2's");
    BOOST_TEST(!case_of(v, "onnxruntime", "causal", 1).measured.has_value(), "another CPU's row is not this one's");
    const auto& torch_causal_2 = case_of(v, "pytorch", "causal", 2);
    BOOST_TEST_REQUIRE(torch_causal_2.measured.has_value());
    BOOST_TEST(torch_causal_2.target == 1.25);
    BOOST_TEST(torch_causal_2.command.find("compare_torch.py --backward --n 4096 --causal --threads 2 --avx2") != std::string::npos);
    // the rows of these kernels on this CPU that are no case: PyTorch's forward alone, n = 1024,
    // and the older of the two full 1-thread rows
    BOOST_TEST(v.others.size() == 3u);

    const auto j = bench::peers_json(v);
    BOOST_TEST(j["kernels"] == "avx2");
    BOOST_TEST(j["cases"].size() == 8u);
    for (const auto& c : j["cases"]) {
        if (c["peer"] == "onnxruntime" && c["attention"] == "full" && c["threads"] == 1) {
            BOOST_TEST(c["ahead"] == true);  // 1.29 ≥ 1.15
            BOOST_TEST(c["measured"]["peer_ms"] == 129.0);
        }
        if (c["peer"] == "pytorch" && c["attention"] == "causal" && c["threads"] == 2) BOOST_TEST(c["ahead"] == false);  // 1.20 < 1.25
        if (c["peer"] == "onnxruntime" && c["threads"] == 2 && c["attention"] == "full") {
            BOOST_TEST(c["measured"].is_null());
            BOOST_TEST(c["ahead"].is_null());
        }
    }
    const std::string text = bench::peers_text(v, lang::en, 200);
    BOOST_TEST(text.find("ONNX Runtime 9.9, forward, full, 1 thread: 1.29× (1.05–1.53 over 5 rounds), target 1.15×: ahead (2026-11-28)") !=
                   std::string::npos, text);
    BOOST_TEST(text.find("PyTorch 9.9, forward + backward, causal, 2 threads: 1.20× (1.05–1.53 over 5 rounds), target 1.25×: not ahead") !=
                   std::string::npos, text);
    BOOST_TEST(text.find("ONNX Runtime, forward, full, 2 threads: not measured; /usr/bin/python3 bench/compare_ort.py") != std::string::npos, text);
    BOOST_TEST(text.find("also ONNX Runtime 9.9, forward, full, 1 thread, n = 1024") != std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(openblas_free_must_be_ahead_too) {
    // compare_ort.py --openblas-free measures qkv twice; the case is ahead when both are
    const auto rows = parse_peer_record(
        record({row("onnxruntime", "forward", "causal", 2, 4096, "plain", "", 1.30, "2026-11-28T00:00:00Z", "\"ratio_openblas_free\": 1.10, ")}),
        "peers.json");
    const bench::peers_view v = bench::peers_for(rows, "plain", "", std::nullopt);
    const auto& c = case_of(v, "onnxruntime", "causal", 2);
    BOOST_TEST_REQUIRE(c.measured.has_value());
    BOOST_TEST(*c.measured->ratio_openblas_free == 1.10);
    for (const auto& j : bench::peers_json(v)["cases"])
        if (j["attention"] == "causal" && j["threads"] == 2 && j["peer"] == "onnxruntime") BOOST_TEST(j["ahead"] == false);
    BOOST_TEST(bench::peers_json(v)["record"].is_null());
    BOOST_TEST(c.command.find("--avx2") == std::string::npos, "only the avx2 kernels need AVX-512 hidden");
    const std::string text = bench::peers_text(v, lang::en, 200);
    BOOST_TEST(text.find("OpenBLAS free 1.10×") != std::string::npos, text);
    BOOST_TEST(text.find("this CPU") != std::string::npos, "a CPU without a name: " << text);
}

BOOST_AUTO_TEST_CASE(a_record_that_is_not_one_is_refused_naming_where) {
    auto refused = [](const std::string& text) -> input_error {
        try {
            parse_peer_record(text, "/scratch/peers.json");
        } catch (const input_error& e) {
            return e;
        }
        BOOST_FAIL("accepted: " << text);
        return input_error("");
    };
    // JSON broken on its third line
    const input_error broken = refused("{\"version\": 1,\n \"rows\": [\n  {\"peer\": }\n]}\n");
    BOOST_TEST(broken.where().file == "/scratch/peers.json");
    BOOST_TEST(broken.where().line == 3);
    BOOST_TEST(std::string(broken.what()).find("not JSON") != std::string::npos, broken.what());
    BOOST_TEST(std::string(refused("{\"version\": 2, \"rows\": []}").what()).find("not a version 1 record") != std::string::npos);
    BOOST_TEST(std::string(refused("[1, 2]").what()).find("not a version 1 record") != std::string::npos);
    const std::string good = row("pytorch", "forward+backward", "full", 1, 4096, "avx2", "Zen 3", 1.0, "2026-11-28T00:00:00Z");
    std::string no_ratio = good;
    no_ratio.replace(no_ratio.find("\"ratio\": "), 9, "\"ratio\": \"fast\", \"was_ratio\": ");
    const std::string said = refused(record({good, no_ratio})).what();
    BOOST_TEST(said.find("/scratch/peers.json") == 0u, said);
    BOOST_TEST(said.find("row 2") != std::string::npos, said);
    BOOST_TEST(said.find("'ratio' must be a number") != std::string::npos, said);
    std::string no_threads = good;
    no_threads.replace(no_threads.find("\"threads\": 1"), 12, "\"threads\": 0");
    BOOST_TEST(std::string(refused(record({no_threads})).what()).find("'threads' must be a whole number from 1 to 4096") != std::string::npos);
    BOOST_TEST(std::string(refused(record({"3"})).what()).find("row 1 of the peers' record is not an object") != std::string::npos);
    // an empty record is one: nothing measured yet
    BOOST_TEST(parse_peer_record("{\"version\": 1, \"rows\": []}", "p").empty());
}
