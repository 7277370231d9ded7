// A learner's progress on the exercises, kept per user in $XDG_STATE_HOME/qkv/progress.json
// (else ~/.local/state/qkv/progress.json). Written atomically, so a crash mid-write leaves the
// old file or the new one; changed under a lock, so concurrent processes lose nothing; a file
// that cannot be read is set aside, never fatal.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace qkv {

enum class status { not_tried, wrong, correct };

// "not tried", "wrong", "correct"
std::string_view status_name(status s);

struct exercise_progress {
    status state = status::not_tried;  // once correct, it stays correct
    int attempts = 0;                  // answers checked (unreadable ones not counted)
    int hints = 0;                     // hints shown so far
    bool solution_seen = false;        // `qkv solution` showed the worked solution
};

struct exercise;

struct progress {
    std::map<std::string, exercise_progress> by_id;  // "3.2" -> …
    std::set<int> lessons_read;                       // lessons shown to the end (qkv lesson N)

    // What the file says of one exercise, its hint count clamped to the hints the exercise has now:
    // a lesson update or a hand edit may leave more recorded than there are.
    exercise_progress of(const exercise& e) const;
    status state_of(const std::string& id) const;
    // A checked answer: counts it, and marks the exercise wrong or (for good) correct.
    void record(const std::string& id, bool correct);
};

// The file's path: XDG_STATE_HOME/qkv/progress.json, else HOME/.local/state/qkv/progress.json,
// HOME being the user's home folder from the password database when the variable is unset.
// input_error when there is no absolute folder to be had.
std::string progress_path();

// Read the file; a missing file is empty progress, and one that is not a regular file (a named
// pipe, a device) an input_error. A file that is not valid progress JSON is
// renamed to PATH.corrupt-YYYYMMDD-HHMMSS and empty progress returned, with `warning` saying so
// (the caller prints it; library code does not).
progress load_progress(const std::string& path, std::string* warning = nullptr);

// Replaces PATH whole through the one writer (file_write.hpp: a temporary beside it, fsync,
// rename, the folder synced; a link, a named pipe or a read-only file there refused). Creates the
// progress folder. Throws input_error when the disk refuses.
void save_progress(const progress& p, const std::string& path);

// Load, change and save as one step that concurrent qkv processes take one at a time (an
// exclusive flock on the progress folder): each re-reads what the others saved before changing
// it, so twenty `qkv check`s at once lose none of their records. When `change` throws (the
// output it was to record could not be written), nothing is saved. Returns the progress as saved.
progress update_progress(const std::string& path, const std::function<void(progress&)>& change, std::string* warning = nullptr);

// Remove the file (no error when it is not there).
void reset_progress(const std::string& path);

}  // namespace qkv
