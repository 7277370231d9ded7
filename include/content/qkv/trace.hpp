// The trace: a lesson evaluated stage by stage, in one language. Renderers and the stepper only
// read it; exercises evaluate their expressions on the workspace it leaves behind.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "qkv/formula.hpp"
#include "qkv/i18n.hpp"
#include "qkv/lesson.hpp"
#include "qkv/quote.hpp"
#include "qkv/scenario.hpp"
#include "qkv/scenario_gen.hpp"
#include "qkv/value.hpp"

namespace qkv {

enum class role { input, output };

struct shown_value {
    std::string name;
    role r = role::output;
    value v;
    std::optional<value> row_sums;  // for attention weights: the sum of each row ([n, 1], or per head)
};

// The row sums shown beside attention weights ([n, 1], or one per head); nullopt for other values.
std::optional<value> row_sums_of(const value& v);

struct stage_trace {
    int index = 0;         // from 1
    std::string id;
    std::string title;
    std::string formula;   // the formula that ran, as written
    std::string text;
    filled_spans text_quotes;  // where in text the run's own words were filled in (fill_quotes)
    quote_sources text_sources;  // where each number text quotes stands in the values (fill_quotes)
    std::vector<shown_value> values;
    std::vector<sub_step> steps;  // recorded by built-ins that teach a process; often empty
};

// Where a learner goes after the lesson: its exercises and the next lesson (set by whoever knows
// the course; empty for a lesson file run on its own).
struct what_next {
    bool known = false;                  // set: the lesson is one of the course's
    std::vector<std::string> exercises;  // ids, in order
    int lesson = -1;                     // the next lesson's number, or -1 for the last one
    std::string lesson_title;
};

struct trace {
    int lesson = 0;
    std::string title;
    lang language = lang::en;
    std::string scenario;  // its name, e.g. "苹果很甜"; empty when the lesson read none (it made its own data)
    bool causal = false;   // the scenario is causal: stages ran their causal_formula
    std::size_t stage_count = 0;     // stages in the lesson; `stages` may hold only one (--stage K)
    std::vector<stage_trace> stages;
    what_next after;
};

// A lesson run on a scenario: what it showed, and the values it left (exercises read them).
struct lesson_run {
    trace t;
    workspace ws;  // every value after the last stage
    std::vector<std::string> token_rows;  // the lesson's: whose row labels are the tokens quotes name
};

// Evaluate every stage of the lesson on the scenario. Throws input_error when the lesson needs a
// matrix the scenario lacks (one its own scenario has: naming both files and the matrix), or a
// formula fails.
lesson_run run_lesson(const lesson& l, const scenario& s, lang language);

// The lesson as it runs on the scenario: on a causal one (weights trained under the mask), every
// stage that has a causal_formula runs that one instead.
lesson as_run_on(const lesson& l, const scenario& s);

// The lesson's own scenario (lesson::scenario_file). A path that cannot be read (missing, a name too
// long for the file system, not a regular file) is named at the lesson's own line.
scenario load_lesson_scenario(const lesson& l);

// What a run is told about its scenario: a file (--data), or one made for the learner's own
// sentence (--tokens). With neither, each lesson runs on its own (lesson::scenario_file).
// A lesson whose own scenario is of another width than the one made (lesson 15: 512 wide, 8
// heads) runs at its own size (at_size_of), unless the learner gave the size (--d-model, --heads).
struct scenario_choice {
    std::string file;
    std::optional<scenario> made;
    std::optional<scenario_spec> made_from;  // the spec `made` came from
    bool size_given = false;
};

// The scenario l runs on under `given`: the one made for the sentence (at l's own size when its
// scenario is of another width), the file given, or l's own; a file is read once into `read`.
const scenario& scenario_for(const lesson& l, const scenario_choice& given, std::map<std::string, scenario>& read);

// Load each lesson file in turn and run it on the chosen scenario, each scenario file read once.
std::vector<trace> run_lessons(const std::vector<std::string>& lesson_files, const scenario_choice& given, lang language);

}  // namespace qkv
