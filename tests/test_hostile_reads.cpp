// Issue 43, what qkv reads: a file's size is checked before it is parsed (the progress file, answer
// sheets, scenario and lesson files, matrix files, a model's description line), so a padded or
// sparse file is refused in one line naming it instead of running out of memory; a grade that meets
// one such sheet grades the others; and a grade sheet never reads a file outside its own folder.
#define BOOST_TEST_MODULE hostile_reads
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fmt/format.h>

#include "support/cli_suite.hpp"
#include "support/run_arranged.hpp"

namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
std::size_t count_lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

constexpr off_t gib = off_t(1) << 30;

// A file of `size` bytes that costs no disk: `head` at its start, the rest a hole of zeros.
void sparse_file(const fs::path& path, const std::string& head, off_t size) {
    write_file(path, head);
    BOOST_TEST_REQUIRE(::truncate(path.c_str(), size) == 0);
}

// The program under a 1 GiB address-space limit, its standard output in a file beside the test's
// others: a 3 GiB file read whole could never fit, so only a size checked first passes.
qkv::test::run_result run_limited(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& env = {}) {
#if defined(QKV_PROGRAM_HAS_ASAN)
    return run_qkv(args, "", env);  // AddressSanitizer needs terabytes of address space
#else
    qkv::test::scratch_dir out_dir{"reads-out"};
    const std::string out = (out_dir / "stdout").string();
    auto [status, err] = qkv::test::run_arranged(args, [&] {
        rlimit lim{rlim_t(gib), rlim_t(gib)};
        ::setrlimit(RLIMIT_AS, &lim);
        for (auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
        ::dup2(::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), 1);
    });
    return {status, read_file(out), err};
#endif
}

}  // namespace

// A progress file padded to 3 GiB made every command end in "qkv: out of memory running …". It is
// too large to be one qkv wrote: set aside as a corrupt one is, with a warning naming it, and the
// command runs.
BOOST_AUTO_TEST_CASE(a_progress_file_of_3_gib_is_set_aside_not_read) {
    qkv::test::scratch_dir dir{"reads-progress"};
    const fs::path progress = dir / "qkv" / "progress.json";
    sparse_file(progress, "{\"exercises\": {", 3 * gib);
    auto r = run_limited({"check", "3.2", "0.25"}, {{"XDG_STATE_HOME", dir.path.string()}});
    BOOST_TEST((r.status == 0 || r.status == 1), r.err);
    BOOST_TEST(has(r.err, progress.string() + ": unreadable progress (too large: 3221225472 bytes, where one holds at most 16 MiB)"), r.err);
    BOOST_TEST(!has(r.err, "out of memory"), r.err);
    BOOST_TEST(fs::file_size(progress) < 4096u);  // a fresh one, with this check in it
}

// One 3 GiB sparse sheet in a class folder lost the whole report. The others are graded, and the
// bad one is named as that sheet's problem.
BOOST_AUTO_TEST_CASE(a_class_with_one_3_gib_sheet_grades_the_others_and_names_it) {
    qkv::test::scratch_dir dir{"reads-sheets"};
    write_file(dir / "class" / "ann.toml", "\"3.1\" = \"0.25\"\n");
    write_file(dir / "class" / "bob.toml", "\"3.1\" = \"0.5\"\n");
    sparse_file(dir / "class" / "zed.toml", "\"3.1\" = \"", 3 * gib);
    auto r = run_limited({"grade", (dir / "class").string(), "--format", "json"});
    BOOST_TEST(r.status == 1, r.err);
    BOOST_TEST(has(r.out, "\"sheet\": \"" + (dir / "class" / "ann.toml").string()), r.out.substr(0, 2000));
    BOOST_TEST(has(r.out, "\"sheet\": \"" + (dir / "class" / "bob.toml").string()), r.out.substr(0, 2000));
    BOOST_TEST(has(r.out, "zed.toml: answer sheet: too large: 3221225472 bytes, where one holds at most 1 MiB"), r.out.substr(0, 4000));
    BOOST_TEST(!has(r.err, "out of memory"), r.err);
    // alone, it is the one line of a refusal
    auto one = run_limited({"grade", (dir / "class" / "zed.toml").string()});
    BOOST_TEST(one.status == 2);
    BOOST_TEST(count_lines(one.err) == 1u, one.err);
    BOOST_TEST(has(one.err, "zed.toml: answer sheet: too large"), one.err);
}

// A scenario, a lesson and a matrix file beside a scenario: refused in one line naming the file.
BOOST_AUTO_TEST_CASE(a_scenario_a_lesson_and_a_matrix_file_of_3_gib_are_refused_naming_them) {
    qkv::test::scratch_dir dir{"reads-toml"};
    sparse_file(dir / "big.toml", "name = \"", 3 * gib);
    auto s = run_limited({"lesson", "2", "--data", (dir / "big.toml").string()});
    BOOST_TEST(s.status == 2);
    BOOST_TEST(count_lines(s.err) == 1u, s.err);
    BOOST_TEST(has(s.err, "big.toml: scenario file: too large: 3221225472 bytes, where one holds at most 64 MiB"), s.err);
    auto v = run_limited({"validate", (dir / "big.toml").string()});
    BOOST_TEST(v.status != 0);
    BOOST_TEST(has(v.out + v.err, "big.toml: file: too large"), v.out + v.err);
    write_file(dir / "csv.toml", "name = \"c\"\ntokens = [\"a\"]\n[matrices]\nX = \"x.csv\"\nW_Q = [[1.0]]\nW_K = [[1.0]]\nW_V = [[1.0]]\n");
    sparse_file(dir / "x.csv", "1,", 3 * gib);
    auto c = run_limited({"lesson", "2", "--data", (dir / "csv.toml").string()});
    BOOST_TEST(c.status == 2);
    BOOST_TEST(count_lines(c.err) == 1u, c.err);
    BOOST_TEST(has(c.err, "x.csv: too large: 3221225472 bytes, where one holds at most 128 MiB"), c.err);
    for (const auto& r : {s, v, c}) BOOST_TEST(!has(r.err, "out of memory"), r.err);
}

// A model file whose description line is 100 MB of '[' hit a 4 GiB limit (30 MB took 2.2 GiB): the
// line's length is checked before it is parsed.
BOOST_AUTO_TEST_CASE(a_model_whose_description_line_is_100_mb_is_refused_before_it_is_parsed) {
    qkv::test::scratch_dir dir{"reads-model"};
    write_file(dir / "m.bin", "qkv-model 1\n" + std::string(100'000'000, '[') + "\n");
    auto r = run_limited({"train", "--load", (dir / "m.bin").string(), "--steps", "1"});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(count_lines(r.err) == 1u, r.err);
    BOOST_TEST(has(r.err, "m.bin: the model's description line (line 2) is longer than any qkv writes (at most 64 KiB)"), r.err);
}

// A grade sheet reads no file an answer names outside its own folder: "6.1" = "/etc/shadow" (as
// root) had the report quote 40 bytes of the file's first line, in text and JSON. An absolute name,
// ".." and a link are refused, without a byte of the file in the report; a CSV beside the sheet, or
// in a folder under it, is still read.
BOOST_AUTO_TEST_CASE(a_grade_sheet_reads_no_file_outside_its_own_folder) {
    qkv::test::scratch_dir dir{"reads-confined"};
    const std::string secret = "secret-line-that-must-not-show,1,2,3";
    write_file(dir / "secret.csv", secret + "\n");
    write_file(dir / "class" / "in" / "m.csv", "1, 2\n3, 4\n");
    fs::create_symlink(dir / "secret.csv", dir / "class" / "link.csv");
    fs::create_symlink(dir.path, dir / "class" / "up");
    const std::string names[] = {(dir / "secret.csv").string(), "../secret.csv", "in/../../secret.csv", "link.csv", "up/secret.csv"};
    for (const std::string& name : names) {
        write_file(dir / "class" / "s.toml", fmt::format("\"6.1\" = \"{}\"\n", name));
        for (const char* form : {"text", "json", "csv"}) {
            auto r = run_qkv({"grade", (dir / "class" / "s.toml").string(), "--format", form});
            BOOST_TEST(r.status == 1, name << " " << r.err);
            BOOST_TEST(!has(r.out + r.err, "secret-line"), name << " " << form << ": " << r.out + r.err);
            if (std::string(form) == "text") BOOST_TEST(has(r.out, "unreadable"), r.out);
        }
    }
    // inside the folder: read (a [2, 2] where 6.1 wants [1, 4])
    write_file(dir / "class" / "s.toml", "\"6.1\" = \"in/m.csv\"\n");
    auto ok = run_qkv({"grade", (dir / "class" / "s.toml").string()});
    BOOST_TEST(has(ok.out, "the answer is [2, 2]"), ok.out);
}

// A class folder is read as it is: a .toml in it that is a symbolic link (a student's link to a
// file elsewhere) is named as that sheet's problem and not read, so no key or line of the file it
// points to reaches the report; the other sheets are graded.
BOOST_AUTO_TEST_CASE(a_link_among_a_class_folders_sheets_is_named_not_read) {
    qkv::test::scratch_dir dir{"reads-link"};
    write_file(dir / "elsewhere.toml", "\"secret_key_name\" = \"secret-value\"\n\"3.2\" = \"secret-answer\"\n");
    write_file(dir / "class" / "ann.toml", "\"3.2\" = \"0.25\"\n");
    fs::create_symlink(dir / "elsewhere.toml", dir / "class" / "evil.toml");
    for (const char* form : {"text", "json", "csv"}) {
        auto r = run_qkv({"grade", (dir / "class").string(), "--format", form});
        BOOST_TEST(r.status == 1, r.err);
        BOOST_TEST(!has(r.out + r.err, "secret"), form << ": " << r.out + r.err);
        BOOST_TEST(has(r.out, "evil"), r.out);
    }
    auto text = run_qkv({"grade", (dir / "class").string()});
    BOOST_TEST(has(text.out, "evil.toml: a symbolic link in the class folder: not read"), text.out);
}
