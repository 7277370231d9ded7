// Your own sentence: a scenario generated from a seed, with every number rounded to two decimals
// so it can be copied onto paper, and written back as a scenario file that reads to the same numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/scenario.hpp"

namespace qkv {

struct scenario_spec {
    std::vector<std::string> tokens;
    std::size_t d_model = 4;
    std::size_t heads = 2;
    std::uint64_t seed = 1;
};

// "我 爱 吃 苹果" -> {"我", "爱", "吃", "苹果"}: split at spaces and tabs.
std::vector<std::string> split_tokens(std::string_view sentence);

// X (one row per token; a token that comes twice gets the same row, as from an embedding table)
// drawn from N(0, 1), and W_Q, W_K, W_V, W_O from N(0, 1/d_model), each rounded to two decimals.
// The same spec gives the same numbers on every machine. Throws input_error on a bad spec.
scenario generate_scenario(const scenario_spec& spec);

// The learner's sentence at a lesson's own size: `own`'s weights and heads, with X drawn for the
// spec's tokens at own's width as generate_scenario draws it (the spec's d_model and heads are
// not used). A lesson at a real model's size (512 wide, 8 heads) stays at that size on any sentence.
scenario at_size_of(const scenario& own, const scenario_spec& spec);

// A student's own numbers for a scenario: the same tokens, matrices of the same names and shapes,
// drawn again from a seed made from the name (X-like matrices from N(0, 1), weights from
// N(0, 1/rows)) and rounded to two decimals. The same name gives the same numbers everywhere, so
// a teacher grading a sheet recomputes exactly what the student saw.
scenario student_variant(const scenario& own, std::string_view student);

// A student's own order of an exercise's `count` choices: shown position i holds choice order[i]
// (from 0). The same name and exercise give the same order everywhere (a sheet is graded against
// it); no name gives the file's order. So "7.3 = C" does not travel round a room.
std::vector<std::size_t> choice_order(std::size_t count, std::string_view exercise_id, std::string_view student);

// The scenario as a scenario file (TOML) that load_scenario reads back to the same floats, as
// long as its numbers have at most two decimals (what generate_scenario makes). `comment` goes
// first, each of its lines after "# ".
std::string scenario_toml(const scenario& s, std::string_view comment = "");

// The command line that makes the spec again: "--tokens '我 爱' --d-model 4 --heads 2 --seed 1".
std::string spec_arguments(const scenario_spec& spec);

}  // namespace qkv
