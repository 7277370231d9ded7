// Private to attention at scale: which build of a kernel table runs. The softmax's row kernels
// and the tile kernels each come as AVX-512, AVX2 and plain builds (cpu_features.hpp); the first
// this processor runs is used, until a test (or qkv bench --kernels) pins another.
#pragma once

#include <cstddef>
#include <string_view>

#include "qkv/cpu_features.hpp"

namespace qkv::attention::detail {

// Of a table of builds, each with a `name`, widest first and "plain" last: the one in use.
template <class Build, std::size_t N>
class build_choice {
public:
    explicit build_choice(const Build (&builds)[N]) : builds_(builds), active_(&builds[N - 1]) {
        for (const Build& b : builds_)
            if (cpu_runs(b.name)) {
                active_ = &b;
                break;
            }
    }
    const Build& active() const { return *active_; }
    // false, and nothing changed, when there is no such build or this processor cannot run it
    bool use(std::string_view name) {
        for (const Build& b : builds_)
            if (b.name == name && cpu_runs(name)) {
                active_ = &b;
                return true;
            }
        return false;
    }

private:
    const Build (&builds_)[N];
    const Build* active_;
};

}  // namespace qkv::attention::detail
