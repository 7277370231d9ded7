// The program a command runs with (program_setup.hpp), and the one qkv composes (standard_program).
#include "program_setup.hpp"

#include "qkv/train_builtins.hpp"

namespace qkv::cli {

program standard_program() { return {{{"training", train::training_group}}, nullptr}; }

program_setup::program_setup(unsigned uses, const program& p, const console& io)
    : uses_(uses), line_(io, default_lang()) {
    if (uses_ & use::formulas) {
        for (const formula_group& g : p.formulas) add_builtin_group(g.name, g.make);
        // lesson 18 trains a model while it runs: qkv train's progress line shows it (on a terminal)
        train::watch_lesson_runs([this](const train::run_state& s) {
            line_(s);
            if (s.step == s.last_step) line_.clear();
        });
    }
    if (uses_ & use::ranks) devices::install(p.ranks);
}

// No run reports to a console that is gone, and no later command computes on these ranks unasked.
program_setup::~program_setup() {
    if (uses_ & use::formulas) train::watch_lesson_runs({});
    if (uses_ & use::ranks) devices::install(nullptr);
}

}  // namespace qkv::cli
