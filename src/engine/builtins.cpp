// The one table of the formula language's built-ins: the engine's own, as its catalogue lists them
// (builtins_catalogue.cpp), the groups higher layers add after them, and the lookup by name.
#include "qkv/builtins.hpp"

#include <algorithm>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>

#include "builtin_functions.hpp"

namespace qkv {

namespace {

struct table {
    std::deque<builtin> all;
    std::set<std::string, std::less<>> groups;  // the names add_builtin_group has seen
    std::mutex lock;

    table() {
        for (builtin& b : builtin_functions::catalogue()) all.push_back(std::move(b));
    }
};

table& the_table() {
    static table t;
    return t;
}

}  // namespace

std::vector<builtin> builtins_of(std::span<const builtin_entry> catalogue) {
    std::vector<builtin> out;
    for (const builtin_entry& e : catalogue) {
        const std::string_view signature = e.signature;
        const std::string_view params = signature.substr(signature.find('(') + 1);
        const int listed = params.front() == ')' ? 0 : 1 + int(std::count(params.begin(), params.end(), ','));
        if (!e.work) throw std::logic_error("builtins_of: " + std::string(signature) + " states no work");
        out.push_back({std::string(signature.substr(0, signature.find('('))), listed - e.optional, listed,
                       std::string(signature), e.help, e.fn, e.work});
    }
    return out;
}

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
