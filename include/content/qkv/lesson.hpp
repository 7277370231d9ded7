// Lesson files (lessons/NN-name.toml): ordered stages, each with the formula it runs.
//
//   number = 3
//   title = { zh = "注意力分数", en = "Scores" }
//   scenario = "apple.toml"            # optional: the default scenario, in the data folder
//   min_tokens = 2                     # optional: fewer tokens are refused in one line (default 1)
//   token_rows = ["X", "X_src"]        # optional: the values whose row labels are the sentence's
//                                      #   tokens, as quotes count them (this is the default)
//
//   [[stage]]
//   id = "scores"
//   title = { zh = "…", en = "…" }
//   formula = "S = Q @ K^T"            # one statement per line (a multi-line string for several)
//   causal_formula = "…"               # optional: what runs instead on a causal scenario (its
//                                      #   weights were trained under the mask, so no position
//                                      #   may see a later one): the same names, masked
//   show = ["Q", "K", "S"]             # optional: the values the stage shows, in order
//                                      #   (default: the matrices it reads, then what it assigns)
//   axes = { S = ["queries", "keys"] } # optional: what the rows and columns of a value are
//   marks = { A_h = "P_ind" }          # optional: weights whose heatmap marks the cells (the 1s)
//                                      #   of a pattern the stage computes: what a score counts
//                                      #   (a stack: ["devices", "tokens", "features"])
//   text = { zh = """…""", en = """…""" }  # may quote the run: {A[1, 3]}, {top(A, 1)} (quote.hpp)
//
//   [[exercise]] …                     # read by exercise.hpp; the lesson loader skips them
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "qkv/bilingual.hpp"
#include "qkv/error.hpp"
#include "qkv/formula.hpp"
#include "qkv/i18n.hpp"

namespace qkv {

struct problem;
struct toml_document;

struct stage {
    std::string id;
    bilingual title;
    bilingual text;
    formula f;                       // parsed; f.source is what the stage prints
    std::optional<formula> f_causal;  // causal_formula: runs (and prints) instead on a causal scenario
    std::vector<std::string> show;   // as given, or the default (see above)
    std::map<std::string, std::pair<std::string, std::string>> axes;  // name -> (rows, cols)
    std::map<std::string, std::string> stack_axes;  // name -> what its stack holds: heads, devices, samples
    std::map<std::string, std::string> marks;       // weights -> the pattern whose cells its heatmap marks
    std::map<std::string, source_loc> marks_at;     // name -> where its marks are given
    std::map<std::string, source_loc> axes_at;      // name -> where its axes are given
    source_loc where;                // of the [[stage]] table
};

struct lesson {
    std::string file;
    int number = 0;
    bilingual title;
    std::string scenario = "apple.toml";  // file name in the data folder, as written
    std::string scenario_file;            // where it is: in the data folder, or beside the lesson file
    source_loc scenario_at;               // where the lesson names it (its file alone when it does not)
    std::size_t min_tokens = 1;           // a sentence with fewer is refused before anything runs
    // The values whose row labels are the tokens quotes name: {token(i)} counts through them in
    // order, "苹果" in a quote is its row in the first that has it. A scenario labels X's rows with
    // its tokens and X_src's with its source tokens.
    std::vector<std::string> token_rows = {"X", "X_src"};
    std::vector<source_loc> token_rows_at;  // where each is named (empty for the default)
    std::vector<stage> stages;
};

// Read and check a lesson file: every key known, both languages written, formulas parse, stage
// ids unique (that each name shown, given axes or named in token_rows exists is checked when it
// runs, by run_lesson). Throws input_error with file:line:column.
lesson load_lesson(const std::string& path);
// The same checks on a file already read. With `problems`, every problem is added to it instead
// of the first being thrown (`qkv validate`); the lesson returned then holds the stages that read
// cleanly.
lesson read_lesson(const toml_document& doc, std::vector<problem>* problems = nullptr);

// A lesson file's head, parsed alone: the lines before its first table ([[stage]]), where TOML
// keeps every key of the root table (number, title, scenario, …). Listing the lessons and naming
// the next one need only those; the head is a few lines of a file of hundreds (`qkv lesson 8`
// had parsed every lesson file whole, three times over, to say which comes next). The whole file
// when the head does not parse alone (its first '[' line is inside a value); the file's errors as
// read_toml_file throws them.
toml_document read_lesson_head(const std::string& path);
// What the course lists of a lesson: its number and title, from the head; a file whose head does
// not give both is loaded whole (load_lesson), which throws its first problem.
struct course_entry {
    int number = 0;
    bilingual title;
};
course_entry read_course_entry(const std::string& path);

// The lesson files in a folder, by number: (number, path). Files not named NN-*.toml are ignored.
// Two files may not share a number, by name (03-a.toml, 03-b.toml) or by their `number = N`:
// input_error at the second.
std::vector<std::pair<int, std::string>> lesson_files(const std::string& dir);
// The name a lesson is run by and listed under: its file's, without the number ("05-softmax.toml"
// gives "softmax").
std::string lesson_name(const std::string& path);
// The names of lesson files: NN-name.toml, the number first.
inline constexpr const char* lesson_file_pattern = R"(^(\d{1,4})-[^/]*\.toml$)";
// Every file of `files` (as lesson_files lists them, by the number of their names) whose number
// one before it has already: its `number = N` line, or the file when the names clash. `qkv
// validate` lists them; lesson_files throws the first.
std::vector<problem> shared_numbers(const std::vector<std::pair<int, std::string>>& files);
// The files of a folder whose names match `pattern` (a regular expression whose first group is
// the number), by number: (number, path). A missing folder has none.
std::vector<std::pair<int, std::string>> numbered_files(const std::string& dir, const std::string& pattern);

// The folders qkv reads from: QKV_LESSONS / QKV_DATA when set; else, for an installed qkv, the
// ones installed with it (datadir/qkv, found relative to the program); else the ones beside the
// sources it was built from.
std::string lessons_dir();
std::string data_dir();

}  // namespace qkv
