// Issue 43, a training run and its files: everything that can be checked is checked before the
// first step (the folder of --save and --scenario, a name too long, the two naming one file,
// --record-batches' memory, option values that make weights that are not numbers); the report is
// printed whatever happens to the files; qkv writes no file it would refuse to read; and --load
// trusts no number of its file (integer overflow, JSON of the wrong type).
#define BOOST_TEST_MODULE train_files
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/cli_suite.hpp"

namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
std::size_t count_lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// The smallest model the induction task takes, a few steps: a run of a moment.
const std::vector<std::string> tiny = {"train", "--vocab", "8", "--seq", "8", "--d-model", "4", "--heads", "1", "--layers", "1",
                                       "--batch", "2"};
std::vector<std::string> tiny_with(std::vector<std::string> more) {
    std::vector<std::string> args = tiny;
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

// The model file's two first lines and its weights, to change a number in its description.
struct model_file {
    std::string first;
    nlohmann::ordered_json head;
    std::string weights;
};
model_file split(const std::string& bytes) {
    const std::size_t a = bytes.find('\n'), b = bytes.find('\n', a + 1);
    return {bytes.substr(0, a), nlohmann::ordered_json::parse(bytes.substr(a + 1, b - a - 1)), bytes.substr(b + 1)};
}
std::string join(const model_file& m) { return m.first + "\n" + m.head.dump() + "\n" + m.weights; }

}  // namespace

// A missing folder, a name of 240 bytes (whose temporary, ".NAME.tmp-PID-XXXXXX", was longer than
// 255) and a folder that is a file: each refused before the first step, naming the option's file,
// where the run used to train to the end and then fail "cannot write" without its report.
BOOST_AUTO_TEST_CASE(save_and_scenario_check_their_folder_before_the_first_step) {
    qkv::test::scratch_dir dir{"train-folder"};
    write_file(dir / "file", "x");
    const std::string missing = (dir / "nowhere" / "m.bin").string(), under_file = (dir / "file" / "m.bin").string();
    const std::string too_long = (dir / std::string(256, 'a')).string();
    for (const char* option : {"--save", "--scenario"})
        for (const std::string& path : {missing, under_file, too_long}) {
            std::vector<std::string> args = tiny_with({"--steps", "100000", option, path});
            if (std::string(option) == "--scenario") args.insert(args.end(), {"--layer", "1"});
            auto r = run_qkv(args);  // 10⁵ steps would take minutes: the refusal comes first
            BOOST_TEST(r.status == 2, option << " " << path);
            BOOST_TEST(count_lines(r.err) == 1u, r.err);
            BOOST_TEST(r.out.empty());
            BOOST_TEST(has(r.err, path.substr(0, 100)), r.err);
        }
    // a name of 240 bytes is a name the file system takes: written, its temporary's name cut to fit
    const std::string long_name = (dir / std::string(240, 'b')).string();
    auto r = run_qkv(tiny_with({"--steps", "2", "--save", long_name}));
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(fs::exists(long_name));
    auto s = run_qkv({"scenario", "--tokens", "a b", "-o", (dir / std::string(240, 'c')).string()});
    BOOST_TEST(s.status == 0, s.err);
    BOOST_TEST(fs::exists(dir / std::string(240, 'c')));
}

// The report is kept whatever happens to the files: a file that cannot be written is said on
// standard error after the report, with status 2. Here the folder, there when the run started, is
// taken away while it trains (the default model, 3000 steps: seconds).
BOOST_AUTO_TEST_CASE(the_report_is_printed_when_a_file_cannot_be_written) {
    qkv::test::scratch_dir dir{"train-report"};
    fs::create_directories(dir / "gone");
    const std::string path = (dir / "gone" / "m.bin").string();
    std::thread away([&] {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        std::error_code ec;
        fs::remove_all(dir / "gone", ec);
    });
    auto r = run_qkv({"train", "--steps", "3000", "--save", path});
    away.join();
    BOOST_TEST(r.status == 2, r.err);
    BOOST_TEST(has(r.out, "qkv train"), r.out);
    BOOST_TEST(has(r.out, "Trained 3000 steps"), r.out);
    BOOST_TEST(count_lines(r.err) == 1u, r.err);
    BOOST_TEST(has(r.err, path + ": cannot write: its folder does not exist"), r.err);
}

// --save F --scenario F exited 0, the scenario silently replacing the model.
BOOST_AUTO_TEST_CASE(save_and_scenario_naming_one_file_are_refused) {
    qkv::test::scratch_dir dir{"train-same"};
    const std::string f = (dir / "F").string();
    for (const std::string& other : {f, (dir / "." / "F").string()}) {
        auto r = run_qkv(tiny_with({"--steps", "2", "--save", f, "--scenario", other, "--layer", "1"}));
        BOOST_TEST(r.status == 2);
        BOOST_TEST(count_lines(r.err) == 1u, r.err);
        BOOST_TEST(has(r.err, "--save and --scenario name the same file"), r.err);
        BOOST_TEST(!fs::exists(f));
    }
}

// --record-batches holds some 40 bytes a token: batch 4096 × seq 24 × 10⁴ steps is 9.8·10⁸ tokens,
// 36.6 GiB, refused with its figure before the first step (it grew until the memory ran out).
BOOST_AUTO_TEST_CASE(record_batches_that_would_not_fit_are_refused_up_front) {
    auto r = run_qkv({"train", "--batch", "4096", "--steps", "10000", "--record-batches", "--format", "json"});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(count_lines(r.err) == 1u, r.err);
    BOOST_TEST(has(r.err, "--record-batches would hold 36.6 GiB (10000 steps × batch 4096 × seq 24 tokens, about 40 bytes each)"), r.err);
    auto ok = run_qkv(tiny_with({"--steps", "2", "--record-batches", "--format", "json"}));
    BOOST_TEST(ok.status == 0, ok.err);
}

// --init-embedding 3e38 overflowed to inf and was saved (status 0), then --load refused "E[1, 1] is
// not a finite number". Refused before the first step, naming the option; nothing is written.
BOOST_AUTO_TEST_CASE(options_that_make_weights_that_are_not_numbers_are_refused) {
    qkv::test::scratch_dir dir{"train-init"};
    for (const char* option : {"--init-embedding", "--init-position", "--init-gain"}) {
        const std::string f = (dir / option).string();
        auto r = run_qkv(tiny_with({"--steps", "0", option, "3e38", "--save", f}));
        BOOST_TEST(r.status == 2, option);
        BOOST_TEST(count_lines(r.err) == 1u, r.err);
        BOOST_TEST(has(r.err, fmt::format("{} is too large: it makes", option)), r.err);
        BOOST_TEST(has(r.err, "not a finite number"), r.err);
        BOOST_TEST(!fs::exists(f));
    }
    // weights that are finite but whose layer is not (1e30 squared): the scenario is not written,
    // since --data would refuse it; the report is printed all the same
    const std::string sc = (dir / "s.toml").string();
    auto r = run_qkv(tiny_with({"--steps", "0", "--init-embedding", "1e30", "--init-gain", "1e30", "--scenario", sc, "--layer", "1"}));
    BOOST_TEST(r.status == 2, r.err);
    BOOST_TEST(!fs::exists(sc));
    BOOST_TEST(has(r.out, "qkv train"), r.out);
    BOOST_TEST(has(r.err, "s.toml"), r.err);
}

// --load trusted its numbers: segment lengths of 2^63 + 2 … 2^63 + 8 passed because 2 · max
// wrapped to 16, and steps_done of 2^64 − 5 with --steps 10 ran no step and exited 0. A table entry
// of the wrong JSON type ended in nlohmann's own words without the file's name.
BOOST_AUTO_TEST_CASE(load_refuses_numbers_that_hold_together_only_by_overflow) {
    qkv::test::scratch_dir dir{"train-load"};
    const std::string good = (dir / "good.bin").string();
    BOOST_TEST_REQUIRE(run_qkv(tiny_with({"--steps", "2", "--save", good})).status == 0);
    const model_file m = split(read_file(good));
    struct bad_file {
        const char* name;
        std::function<void(nlohmann::ordered_json&)> change;
        const char* said;
    };
    const std::uint64_t two63 = std::uint64_t{1} << 63;
    const bad_file cases[] = {
        {"segments.bin", [&](auto& h) { h["config"]["segment_min"] = two63 + 2, h["config"]["segment_max"] = two63 + 8; },
         "two copies of a segment of 9223372036854775816 do not fit in seq 8"},
        {"steps.bin", [](auto& h) { h["steps_done"] = std::uint64_t(-5); }, "steps_done 18446744073709551611 is more than any run takes"},
        {"type.bin", [](auto& h) { h["tensors"][0] = 7; }, "its tensor table does not match its config"},
        {"name.bin", [](auto& h) { h["tensors"][1]["name"] = 7; }, "its tensor table does not match its config"},
    };
    for (const bad_file& c : cases) {
        model_file changed = m;
        c.change(changed.head);
        write_file(dir / c.name, join(changed));
        auto r = run_qkv({"train", "--load", (dir / c.name).string(), "--steps", "10"});
        BOOST_TEST(r.status == 2, c.name);
        BOOST_TEST(count_lines(r.err) == 1u, r.err);
        BOOST_TEST(has(r.err, (dir / c.name).string() + ": "), r.err);
        BOOST_TEST(has(r.err, c.said), r.err);
        BOOST_TEST(!has(r.err, "json.exception"), r.err);
    }
}
