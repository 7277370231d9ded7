// An enum's names as one table that both says a value's name and reads a name back, so that the
// two directions cannot disagree (a task in a model file, an impl on the command line).
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace qkv {

template <class E>
struct enum_name {
    E value;
    std::string_view name;
};

// `otherwise` for a value the table does not hold (a value cast from an out-of-range number).
template <class E>
constexpr std::string_view name_in(std::span<const enum_name<E>> table, E e, std::string_view otherwise = "?") {
    for (const enum_name<E>& n : table)
        if (n.value == e) return n.name;
    return otherwise;
}

template <class E>
constexpr std::optional<E> value_in(std::span<const enum_name<E>> table, std::string_view name) {
    for (const enum_name<E>& n : table)
        if (n.name == name) return n.value;
    return std::nullopt;
}

}  // namespace qkv
