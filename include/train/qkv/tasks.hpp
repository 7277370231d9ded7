// The training tasks, one table: each task's name, how its sequences are drawn, which predictions
// can be right and where the token each must predict stands, what it asks of the sizes, and how its
// heads are judged. Everything that differs between tasks reads its entry, so a new task is one
// entry here and its own code in tasks.cpp (and its words in the report, report_train.cpp).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/task_data.hpp"

namespace qkv::train {

struct task_rule {
    task id;
    std::string_view name;  // --task NAME, and the "task" of the JSON and of a model file
    // One training sequence from uniform draws u [seq + 3] in [0, 1): its tokens [seq] and its span.
    void (*fill)(const train_config& c, const float* u, int* tokens, repeat_span& span);
    // The held-out sequence from the same draws and a shuffle of the vocabulary (`order`: its first
    // tokens, all distinct, make a segment that can be kept out of the rest).
    void (*fill_held_out)(const train_config& c, const float* u, const std::vector<int>& order, int* tokens,
                          repeat_span& span);
    // The predictions that can be right (prediction_range, task_data.hpp).
    prediction_range (*predictable)(const repeat_span& r);
    // For a prediction at position p of predictable(r), where the token it must predict stands
    // earlier in the sequence. The tokens are given so that a task whose answer depends on their
    // values (sorting) can say where, as well as one whose answer is a place (reverse, copy).
    std::size_t (*source_of)(std::span<const int> tokens, const repeat_span& r, std::size_t p);
    // What the task asks of the sizes beyond what every task does; input_error naming them.
    void (*check)(const train_config& c);
    // How its heads are judged: false, by the previous-token and induction scores (the run names the
    // circuit's two heads); true, by the source score (the run names the source head), as reverse
    // and copy are solved by one head that looks where the answer stands.
    bool by_source;
};

// Every task, in the order --help lists them (the first is the default).
std::span<const task_rule> tasks();
// The entry of t (every task has one; tasks.cpp holds them).
const task_rule& rule_of(task t);
// The task called `name`, or nullptr.
const task_rule* find_task(std::string_view name);
// The names joined, the last two by `last`: task_list(", ", " or ") is "induction, reverse or copy".
std::string task_list(std::string_view between, std::string_view last);

// A uniform draw u in [0, 1) made into a whole number in [lo, hi]: how every task draws.
std::size_t whole_in(float u, std::size_t lo, std::size_t hi);

}  // namespace qkv::train
