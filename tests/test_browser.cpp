// The HTML handout as a browser shows it: qkv writes the page, headless Chromium (Debian's
// chromium, installed by `bash .ci/deps --tests`) loads it with the network switched off and
// dumps the DOM it built, and takes a screenshot. Skipped, saying why, only when Chromium is
// missing or cannot start on this machine.
#define BOOST_TEST_MODULE browser
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qkv/kernels.hpp"
#include "qkv/scenario.hpp"
#include "support/scratch.hpp"
#include "support/run_qkv.hpp"
#include "support/text.hpp"

using qkv::test::count_of;
using qkv::test::run_qkv;
using qkv::test::shell;
namespace fs = std::filesystem;
namespace utf = boost::unit_test;

namespace {

std::string chromium_path() {
    std::string p = shell("command -v chromium || command -v chromium-browser || command -v google-chrome");
    while (!p.empty() && (p.back() == '\n' || p.back() == ' ')) p.pop_back();
    return p;
}

// Headless Chromium with everything that could reach the network off, in a fresh profile.
std::string chromium(const std::string& what, const fs::path& page) {
    qkv::test::scratch_dir profile;
    std::string cmd = fmt::format(
        "timeout 90 '{}' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
        "--disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage "
        "--user-data-dir='{}' {} 'file://{}' 2>/dev/null",
        chromium_path(), profile.path.string(), what, page.string());
    return shell(cmd);
}

// Chromium is here and starts: else the browser tests are skipped with the reason.
boost::test_tools::assertion_result chromium_runs(utf::test_unit_id) {
    boost::test_tools::assertion_result r(false);
    if (chromium_path().empty()) {
        r.message() << "chromium is not installed (bash .ci/deps --tests installs it): the browser tests are skipped";
        return r;
    }
    qkv::test::scratch_dir d;
    std::ofstream(d.path / "blank.html") << "<!DOCTYPE html><title>t</title><p>ok</p>";
    if (chromium("--dump-dom", d.path / "blank.html").find("<p>ok</p>") == std::string::npos) {
        r.message() << "chromium is installed but cannot run here: the browser tests are skipped";
        return r;
    }
    return true;
}

}  // namespace

BOOST_AUTO_TEST_CASE(chromium_shows_the_lesson_its_numbers_and_the_legend, *utf::precondition(chromium_runs)) {
    qkv::test::scratch_dir d;
    fs::path page = d.path / "lesson5.html";
    auto r = run_qkv({"lesson", "5", "--format", "html"});
    BOOST_REQUIRE_EQUAL(r.status, 0);
    std::ofstream(page, std::ios::binary) << r.out;
    std::string dom = chromium("--dump-dom", page);
    BOOST_REQUIRE(!dom.empty());

    // The title as `qkv list` knows it, and a heading per stage.
    auto list = nlohmann::json::parse(run_qkv({"list", "--format", "json"}).out);
    std::string title;
    std::size_t stages = 0;
    for (auto& l : list["lessons"])
        if (l["number"] == 5) title = l["title"], stages = l["stages"];
    BOOST_TEST(dom.find("<h1>Lesson 5 · " + title + "</h1>") != std::string::npos);
    BOOST_TEST(stages >= 6u);
    BOOST_TEST(count_of(dom, "<section class=\"stage\"") == stages);

    // A weight computed here from the scenario with the plain kernels: A = softmax(Q Kᵀ / √4),
    // row 苹果, column 甜.
    qkv::scenario s = qkv::load_scenario("data/apple.toml");
    using namespace qkv::kernels;
    qkv::matrix Q = matmul_ref(s.matrices.at("X"), s.matrices.at("W_Q"));
    qkv::matrix K = matmul_ref(s.matrices.at("X"), s.matrices.at("W_K"));
    qkv::matrix S = matmul_ref(Q, transpose(K));
    for (float& x : S.data) x /= 2.0f;  // sqrt(d_k) = sqrt(4)
    qkv::matrix A = softmax_rows(S);
    std::string cell = fmt::format("{:.4f}</td>", A(0, 2));
    BOOST_TEST_MESSAGE("A[苹果, 甜] = " << cell);
    BOOST_TEST(dom.find("class=\"heat\"") != std::string::npos);
    BOOST_TEST(dom.find(cell) != std::string::npos, "the page lacks " << cell);
    BOOST_TEST(dom.find("<th scope=\"col\" class=\"sum\">row sums</th>") != std::string::npos);
    BOOST_TEST(dom.find("class=\"legend\"") != std::string::npos);
    BOOST_TEST(dom.find("legend: weight") != std::string::npos);
    BOOST_TEST(dom.find("<pre class=\"formula\"><code>") != std::string::npos);

    // And it paints: a 1200 × 1600 screenshot with something on it.
    fs::path shot = d.path / "shot.png";
    chromium(fmt::format("--screenshot='{}' --window-size=1200,1600 --hide-scrollbars", shot.string()), page);
    BOOST_REQUIRE(fs::exists(shot));
    BOOST_TEST(fs::file_size(shot) > 20000u);
    std::ifstream png(shot, std::ios::binary);
    char magic[8] = {};
    png.read(magic, 8);
    BOOST_TEST(std::string(magic + 1, 3) == "PNG");
}

BOOST_AUTO_TEST_CASE(a_chinese_handout_of_every_lesson_loads, *utf::precondition(chromium_runs)) {
    qkv::test::scratch_dir d;
    fs::path page = d.path / "all.html";
    auto r = run_qkv({"lesson", "all", "--format", "html", "--lang", "zh"});
    BOOST_REQUIRE_EQUAL(r.status, 0);
    std::ofstream(page, std::ios::binary) << r.out;
    std::string dom = chromium("--dump-dom", page);
    auto list = nlohmann::json::parse(run_qkv({"list", "--format", "json"}).out);
    BOOST_TEST(dom.find("<html lang=\"zh-Hans\">") != std::string::npos);
    BOOST_TEST(count_of(dom, "<article class=\"lesson\"") == list["lessons"].size());
    BOOST_TEST(dom.find("第 1 课") != std::string::npos);
    BOOST_TEST(dom.find("图例：权重") != std::string::npos);
}
