// The one table of the formula language's built-ins: the groups of src/builtins_<group>.cpp in
// the order `qkv formulas` lists them, and the lookup by name.
#include "qkv/builtins.hpp"

namespace qkv {

const std::vector<builtin>& builtins() {
    static const std::vector<builtin> table = [] {
        std::vector<builtin> t;
        for (auto group : {builtin_groups::softmax, builtin_groups::entries, builtin_groups::rows,
                           builtin_groups::heads, builtin_groups::statistics, builtin_groups::create,
                           builtin_groups::sequential, builtin_groups::low_rank, builtin_groups::positions,
                           builtin_groups::backward})
            for (builtin& b : group()) t.push_back(std::move(b));
        return t;
    }();
    return table;
}

const builtin* find_builtin(std::string_view name) {
    for (const builtin& b : builtins())
        if (b.name == name) return &b;
    return nullptr;
}

}  // namespace qkv
