// Every input that once broke a reader (found by fuzz/run.sh or by hand while hardening), replayed
// through the fuzz targets' own entry points: tests/data/fuzz-regressions/TARGET/NAME.refused must
// be refused with an input_error, NAME.accepted accepted. A crash, a hang or (under the sanitizer
// build of .ci/run) a sanitizer report fails the suite as well.
#define BOOST_TEST_MODULE fuzz_regressions
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "../fuzz/entry_points.hpp"

namespace fs = std::filesystem;
using qkv::fuzz::outcome;

namespace {

const std::map<std::string, std::function<outcome(const std::uint8_t*, std::size_t)>>& targets() {
    static const std::map<std::string, std::function<outcome(const std::uint8_t*, std::size_t)>> m = {
        {"formula", qkv::fuzz::formula_input},   {"lesson", qkv::fuzz::lesson_input},
        {"scenario", qkv::fuzz::scenario_input}, {"csv", qkv::fuzz::csv_input},
        {"answer", qkv::fuzz::answer_input},     {"exercise", qkv::fuzz::exercise_input},
        {"toml", qkv::fuzz::toml_input},         {"progress", qkv::fuzz::progress_input},
    };
    return m;
}

std::string bytes_of(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream buf;
    buf << in.rdbuf();
    return buf.str();
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_kept_input_meets_its_expected_fate) {
    const fs::path root = fs::path(QKV_SOURCE_ROOT) / "tests" / "data" / "fuzz-regressions";
    std::size_t replayed = 0;
    for (const auto& dir : fs::directory_iterator(root)) {
        std::string target = dir.path().filename().string();
        BOOST_TEST_REQUIRE(targets().count(target) == 1u, "no fuzz target named " << target);
        for (const auto& f : fs::directory_iterator(dir.path())) {
            std::string ext = f.path().extension().string();
            BOOST_TEST_REQUIRE((ext == ".refused" || ext == ".accepted"), f.path() << ": name it NAME.refused or NAME.accepted");
            std::string bytes = bytes_of(f.path());
            outcome got = targets().at(target)(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
            BOOST_TEST((got == (ext == ".refused" ? outcome::refused : outcome::accepted)), f.path());
            ++replayed;
        }
    }
    BOOST_TEST(replayed >= 10u);
}
