// The one table of the formula language's built-ins: the groups of src/builtins_<group>.cpp in
// the order `qkv formulas` lists them, the groups higher layers add after them, and the lookup by
// name.
#include "qkv/builtins.hpp"

#include <mutex>
#include <set>
#include <stdexcept>
#include <string>

namespace qkv {

namespace {

struct table {
    std::deque<builtin> all;
    std::set<std::string, std::less<>> groups;  // the names add_builtin_group has seen
    std::mutex lock;

    table() {
        for (auto group : {builtin_groups::softmax, builtin_groups::entries, builtin_groups::rows,
                           builtin_groups::heads, builtin_groups::statistics, builtin_groups::create,
                           builtin_groups::sequential, builtin_groups::low_rank, builtin_groups::positions,
                           builtin_groups::backward, builtin_groups::devices})
            for (builtin& b : group()) all.push_back(std::move(b));
    }
};

table& the_table() {
    static table t;
    return t;
}

}  // namespace

const std::deque<builtin>& builtins() { return the_table().all; }

const builtin* find_builtin(std::string_view name) {
    for (const builtin& b : builtins())
        if (b.name == name) return &b;
    return nullptr;
}

void add_builtin_group(std::string_view group, std::vector<builtin> (*make)()) {
    table& t = the_table();
    const std::lock_guard<std::mutex> hold(t.lock);
    if (!t.groups.emplace(group).second) return;
    for (builtin& b : make()) {
        if (find_builtin(b.name)) throw std::logic_error("add_builtin_group: a second built-in named " + b.name);
        t.all.push_back(std::move(b));
    }
}

}  // namespace qkv
