// Progress on disk: one JSON file, replaced whole by rename(2) so that a reader (or a crash) never
// sees half of it. Format: {"version": 1, "exercises": {"3.2": {"status": "correct",
// "attempts": 2, "hints": 1, "solution_seen": true}}, "lessons_read": [1, 2]}.
#include "qkv/progress.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qkv/enum_names.hpp"
#include "qkv/error.hpp"
#include "qkv/file_words.hpp"
#include "qkv/exercise.hpp"
#include "qkv/file_read.hpp"
#include "qkv/file_write.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr enum_name<status> status_names[] = {
    {status::not_tried, "not tried"}, {status::wrong, "wrong"}, {status::correct, "correct"}};

std::optional<status> status_of(std::string_view s) { return value_in<status>(status_names, s); }

// A whole number from 0 to INT_MAX, checked before it is converted: nlohmann's get<int>() of 1e300
// or of a 64-bit count would be undefined behaviour, not an error.
int count_of(const json& v, const char* what) {
    const bool whole = v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
    if (!whole || v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        throw std::runtime_error(fmt::format("{} must be a whole number from 0 to {}", what, std::numeric_limits<int>::max()));
    return static_cast<int>(v.get<std::uint64_t>());
}

// Throws (json or std::runtime_error) when the document is not progress.
progress from_json(const json& doc) {
    progress p;
    if (!doc.is_object() || doc.value("version", 0) != 1 || !doc.contains("exercises") || !doc["exercises"].is_object())
        throw std::runtime_error("not a qkv progress file (version 1)");
    for (auto& [id, entry] : doc["exercises"].items()) {
        auto st = status_of(entry.at("status").get<std::string>());
        if (!st) throw std::runtime_error("a bad status for " + id);
        const json& seen = entry.contains("solution_seen") ? entry["solution_seen"] : json(false);  // absent in older files
        p.by_id[id] = {*st, count_of(entry.at("attempts"), "attempts"), count_of(entry.at("hints"), "hints"), seen.get<bool>()};
    }
    if (doc.contains("lessons_read")) {  // absent in files written before it existed
        if (!doc["lessons_read"].is_array()) throw std::runtime_error("lessons_read is not a list");
        for (const json& n : doc["lessons_read"]) p.lessons_read.insert(count_of(n, "a lesson read"));
    }
    return p;
}

std::string to_text(const progress& p) {
    json ex = json::object();
    for (auto& [id, e] : p.by_id) {
        ex[id] = {{"status", status_name(e.state)}, {"attempts", e.attempts}, {"hints", e.hints}};
        if (e.solution_seen) ex[id]["solution_seen"] = true;
    }
    json doc{{"version", 1}, {"exercises", ex}};
    if (!p.lessons_read.empty()) doc["lessons_read"] = p.lessons_read;
    return doc.dump(2) + "\n";
}

std::string stamp() {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
    return buf;
}

[[noreturn]] void disk_error(const std::string& path, const char* what, int err) {
    throw input_error(source_loc{path, 0, 0}, said("cannot save progress: {} ({})", what, errno_said(err)));
}

}  // namespace

std::string_view status_name(status s) { return name_in<status>(status_names, s); }

exercise_progress progress::of(const exercise& e) const {
    auto it = by_id.find(e.id);
    exercise_progress mine = it == by_id.end() ? exercise_progress{} : it->second;
    mine.hints = std::min(mine.hints, static_cast<int>(std::min<std::size_t>(e.hints.size(), std::numeric_limits<int>::max())));
    return mine;
}

status progress::state_of(const std::string& id) const {
    auto it = by_id.find(id);
    return it == by_id.end() ? status::not_tried : it->second.state;
}

void progress::record(const std::string& id, bool correct) {
    exercise_progress& e = by_id[id];
    if (e.attempts < std::numeric_limits<int>::max()) ++e.attempts;  // a count that stops, not one that wraps
    if (correct) e.state = status::correct;
    else if (e.state != status::correct) e.state = status::wrong;
}

std::string progress_path() {
    const char* xdg = std::getenv("XDG_STATE_HOME");
    if (xdg && *xdg && fs::path(xdg).is_absolute())  // the spec ignores relative ones
        return (fs::path(xdg) / "qkv" / "progress.json").string();
    // HOME, else the home folder the password database gives (HOME unset under some cron jobs and
    // service managers); never the current folder, where progress would scatter unnoticed.
    const char* home = std::getenv("HOME");
    std::string base = home && fs::path(home).is_absolute() ? home : "";
    if (base.empty())
        if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir && *pw->pw_dir) base = pw->pw_dir;
    if (!fs::path(base).is_absolute())
        throw input_error(said("cannot keep progress: neither XDG_STATE_HOME nor HOME is set to a folder; set one of them"));
    return (fs::path(base) / ".local" / "state" / "qkv" / "progress.json").string();
}

// Every exercise and lesson recorded takes a few dozen bytes: 16 MiB is ten thousand times what the
// course fills, and still read in a moment.
constexpr std::uint64_t max_progress_bytes = std::uint64_t{16} << 20;

progress load_progress(const std::string& path, std::string* warning) {
    // Opened without blocking and checked before reading: a named pipe would wait for a writer
    // forever, a device would read without end.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return {};
        throw input_error(source_loc{path, 0, 0}, said("cannot read the progress file: {}", errno_said(errno)));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw input_error(source_loc{path, 0, 0}, said("the progress file is not a regular file; move it away or set XDG_STATE_HOME"));
    }
    // Checked before it is read: one padded to 3 GiB made every command run out of memory. Too large
    // to be one qkv wrote, it is set aside as a corrupt one is, and progress starts afresh.
    std::string text;
    std::optional<std::string> no = read_fd_capped(fd, max_progress_bytes, text);
    ::close(fd);
    if (no && !no->starts_with("too large"))
        throw input_error(source_loc{path, 0, 0}, said("cannot read the progress file: {}", *no));
    try {
        if (no) throw std::length_error(*no);
        return from_json(json::parse(text));
    } catch (const std::exception& e) {
        std::string base = path + ".corrupt-" + stamp(), aside = base;
        std::error_code ec;
        // A second bad file within the same second must not be renamed over the first one.
        for (int k = 2; fs::exists(fs::symlink_status(aside, ec)); ++k) aside = fmt::format("{}-{}", base, k);
        fs::rename(path, aside, ec);
        if (warning)
            *warning = ec ? fmt::format("{}: unreadable progress ({}); starting afresh, and it could not be moved aside: {}",
                                        path, e.what(), ec.message())
                          : fmt::format("{}: unreadable progress ({}); set aside as {}, starting afresh", path, e.what(), aside);
        return {};
    }
}

void save_progress(const progress& p, const std::string& path) {
    fs::path dir = fs::path(path).parent_path();
    std::error_code ec;
    if (!dir.empty()) fs::create_directories(dir, ec);
    if (ec) throw input_error(source_loc{dir.string(), 0, 0}, said("cannot create the progress folder: {}", ec.message()));
    if (auto no = replace_file(path, to_text(p))) throw input_error(source_loc{path, 0, 0}, said("cannot save progress: {}", *no));
}

namespace {

// An exclusive lock on the progress file's folder for as long as it lives (flock on the folder
// itself: no lock file to leave behind; released by the kernel when the process dies, so a killed
// qkv never leaves the class locked out).
class progress_lock {
public:
    explicit progress_lock(const std::string& path) {
        fs::path dir = fs::path(path).parent_path();
        if (dir.empty()) dir = ".";
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec) throw input_error(source_loc{dir.string(), 0, 0}, said("cannot create the progress folder: {}", ec.message()));
        fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd_ < 0) disk_error(dir.string(), "cannot open the progress folder", errno);
        while (::flock(fd_, LOCK_EX) != 0) {
            if (errno == EINTR) continue;
            int err = errno;
            ::close(fd_);
            disk_error(dir.string(), "cannot lock the progress folder", err);
        }
    }
    ~progress_lock() { ::close(fd_); }  // closing releases the lock
    progress_lock(const progress_lock&) = delete;
    progress_lock& operator=(const progress_lock&) = delete;

private:
    int fd_ = -1;
};

}  // namespace

progress update_progress(const std::string& path, const std::function<void(progress&)>& change, std::string* warning) {
    progress_lock lock(path);
    progress p = load_progress(path, warning);
    change(p);
    save_progress(p, path);
    return p;
}

void reset_progress(const std::string& path) {
    progress_lock lock(path);  // not while another process is between reading and saving
    std::error_code ec;
    fs::remove(path, ec);
    if (ec) throw input_error(source_loc{path, 0, 0}, said("cannot remove the progress file: {}", ec.message()));
}

}  // namespace qkv
