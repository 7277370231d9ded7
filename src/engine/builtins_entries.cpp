// Built-ins that apply one function of a number to every entry: a scalar, a matrix or a stack.
// They differ only in that function, so one maker serves them all; the catalogue names each.
#include "builtin_functions.hpp"

#include "qkv/builtin_values.hpp"

namespace qkv::builtin_functions {

fn_t every_entry(float (*f)(float)) {
    return [f](const args_t& a, eval_context&) { return builtin_detail::map_entries(a[0], f); };
}

}  // namespace qkv::builtin_functions
