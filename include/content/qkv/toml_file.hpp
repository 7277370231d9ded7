// TOML files people write by hand (lessons, scenarios, exercises, answer sheets): read once, with
// every syntax error turned into an input_error at file:line:column, and one reader for what the
// loaders check in them, which throws the first problem (to run) or lists them all (qkv validate).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "qkv/bilingual.hpp"
#include "qkv/error.hpp"

namespace qkv {

// One thing to fix in a file, as `qkv validate` lists it.
struct problem {
    problem() = default;
    problem(source_loc where, std::string message) : where(std::move(where)), message(std::move(message)) {}
    // A message found worded in the learner's language too (an input_error's said_message()).
    problem(source_loc where, std::string message, sentence said)
        : where(std::move(where)), message(std::move(message)), said(std::move(said)) {}

    source_loc where;
    std::string message;
    std::optional<sentence> said;
    std::string str() const;  // "file:line:column: message"
    std::string in(lang l) const;  // the same in `l`: str() in English, or where there is no `said`
};

// Where a node starts in `file`.
source_loc loc_of(const std::string& file, const toml::node& n);

// What a node is, for "tokens must be an array, not a string": "a string", "an integer", "a table"…
std::string_view kind_of(const toml::node& n);

// A key (or a [table]) written twice in one file: "key X is given twice" at the second one. A
// reader that knows what its keys are says it in its own words (an answer sheet: "answer "3.1"
// is given twice") from key(), the key as the file writes it.
class duplicate_key : public input_error {
public:
    duplicate_key(const source_loc& where, std::string key, std::string what);
    const std::string& key() const { return key_; }

private:
    std::string key_;
};

// The most a hand-written TOML file may hold, checked before it is read: 64 MiB, some 5·10⁶ numbers,
// far past any lesson or scenario (the largest shipped, data/induction.toml, is 234 KiB), while what
// toml++ builds from it stays within a few hundred MiB. A 3 GiB file (a sparse one costs no disk)
// is refused in one line naming it, not read until the memory runs out.
constexpr std::uint64_t max_toml_bytes = std::uint64_t{64} << 20;

// Parse the file at `path`; `what` names it when it is missing ("lesson file" -> "lesson file not found")
// or larger than `max_bytes` ("answer sheet: too large: … bytes, where one holds at most 1 MiB").
toml::table parse_toml_file(const std::string& path, std::string_view what, std::uint64_t max_bytes = max_toml_bytes);

// Parse text already read; `origin` names it in errors.
toml::table parse_toml_text(std::string_view text, const std::string& origin);

// A file read and parsed once: the text is kept for where a string's characters start.
struct toml_document {
    std::string file;
    std::string text;
    toml::table table;
};

toml_document read_toml_file(const std::string& path, std::string_view what, std::uint64_t max_bytes = max_toml_bytes);
toml_document read_toml_text(std::string_view text, const std::string& origin);
// The text of the file at `path`, unparsed, with read_toml_file's checks (its size too) and errors.
std::string read_text_file(const std::string& path, std::string_view what, std::uint64_t max_bytes = max_toml_bytes);

// What every loader checks, in one place. Each problem is reported: thrown as input_error, or,
// when a list is given, added to it so that reading goes on and finds the next one. The checks
// return nothing (nullopt, nullptr, false) where a problem stopped them.
class toml_reader {
public:
    explicit toml_reader(const toml_document& doc, std::vector<problem>* collect = nullptr);

    const std::string& file() const { return file_; }
    source_loc at(const toml::node& n) const { return loc_of(file_, n); }
    // Where a string's characters start: after the opening quote, or on the next line for a
    // multi-line string that begins with a newline (TOML drops it), so a formula error points
    // at its own column.
    source_loc content_start(const toml::node& n) const;

    void report(source_loc where, std::string message) const;
    // Problems reported so far (while collecting): a part that added none was read cleanly.
    std::size_t problem_count() const { return collect_ ? collect_->size() : 0; }

    // Run `f`, which may throw input_error (a formula parser, say); when collecting, its error
    // is listed and false returned.
    template <class F>
    bool attempt(F&& f) const {
        try {
            f();
            return true;
        } catch (const input_error& e) {
            if (!collect_) throw;
            record(e);
            return false;
        }
    }

    // Every key of `t` is one of `known`; `where` begins the message ("stage 2: unknown key …").
    bool only_keys(const toml::table& t, std::initializer_list<std::string_view> known, std::string_view where) const;
    const toml::node* need(const toml::table& t, std::string_view key, std::string_view where) const;
    std::optional<std::string> string(const toml::node& n, std::string_view what) const;
    std::optional<std::string> required_string(const toml::table& t, std::string_view key, std::string_view where) const;
    // { zh = "…", en = "…" }: both written (not blank), nothing else.
    std::optional<bilingual> text(const toml::node& n, std::string_view what) const;

private:
    void record(const input_error& e) const;

    std::string file_;
    std::vector<std::string> lines_;
    std::vector<problem>* collect_;
};

}  // namespace qkv
