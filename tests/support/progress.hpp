// A learner's progress as the command-line suites meet it: the progress file in the private state
// folder tests/meson.build gives each suite, each exercise's status and counts as qkv reports them
// in JSON, and a fresh start (a scratch folder, progress reset) for a test case.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/run_qkv.hpp"

namespace qkv::test {

inline std::string progress_file() {
    const char* state = std::getenv("XDG_STATE_HOME");
    BOOST_REQUIRE_MESSAGE(state && *state, "tests/meson.build sets XDG_STATE_HOME");
    return (std::filesystem::path(state) / "qkv" / "progress.json").string();
}

// A scratch folder for answer files and sheets, and a clean progress for each test case.
struct fresh {
    std::filesystem::path dir;
    fresh() {
        dir = std::filesystem::temp_directory_path() / fmt::format("qkv_cli_exercise_{}", ::getpid());
        std::filesystem::create_directories(dir);
        BOOST_REQUIRE(run_qkv({"progress", "--reset"}).status == 0);
    }
    ~fresh() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    fresh(const fresh&) = delete;
    fresh& operator=(const fresh&) = delete;
    std::string file(const std::string& name, const std::string& text) const {
        std::ofstream(dir / name, std::ios::binary) << text;
        return (dir / name).string();
    }
};

// Each exercise's status ("not tried", "wrong", "correct") by its id, as `qkv exercises` reports it.
inline nlohmann::json statuses() {
    auto r = run_qkv({"exercises", "--format", "json"});
    BOOST_REQUIRE(r.status == 0);
    nlohmann::json out, all = nlohmann::json::parse(r.out);  // kept alive while we iterate
    for (auto& e : all["exercises"]) out[e["id"].get<std::string>()] = e["status"];
    return out;
}

// One count of exercise `id` (attempts, hints) as `qkv progress` reports it; -1 when it is not listed.
inline int attempts_of(const std::string& id, const char* field = "attempts") {
    auto p = nlohmann::json::parse(run_qkv({"progress", "--format", "json"}).out);
    for (auto& e : p["exercises"])
        if (e["id"] == id) return e[field].get<int>();
    return -1;
}

}  // namespace qkv::test
