// Private to attention at scale: which build (kernel_builds.hpp) a family of kernels runs. The
// tile kernels and the softmax's row kernels each keep their own, so that a test can pin one
// family alone; the first build of the table this processor runs is used until then.
#pragma once

#include <string_view>

#include "qkv/kernel_builds.hpp"

namespace qkv::attention::detail {

class build_choice {
public:
    build_choice() : active_(&widest_kernel_build()) {}
    const kernel_build& active() const { return *active_; }
    // false, and nothing changed, when there is no such build or this processor cannot run it
    bool use(std::string_view name) {
        const kernel_build* b = find_kernel_build(name);
        if (!b || !b->cpu_runs()) return false;
        active_ = b;
        return true;
    }

private:
    const kernel_build* active_;
};

}  // namespace qkv::attention::detail
