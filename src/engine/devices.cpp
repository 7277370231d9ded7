// The devices in use (devices.hpp): by default this one process, which holds every part itself and
// so sends nothing.
#include "qkv/devices.hpp"

#include <algorithm>

namespace qkv::devices {

namespace {

class one_process final : public group {
public:
    std::size_t rank() const override { return 0; }
    std::size_t size() const override { return 1; }
    message_cost all_gather(std::span<const float> mine, std::span<float> all) override {
        std::copy(mine.begin(), mine.end(), all.begin());
        return {};
    }
    message_cost all_reduce_sum(std::span<const float> mine, std::span<float> sum) override {
        std::copy(mine.begin(), mine.end(), sum.begin());
        return {};
    }
    std::vector<double> all_gather_figures(std::span<const double> mine) override { return {mine.begin(), mine.end()}; }
};

one_process solo;
group* installed = nullptr;

}  // namespace

group& current() { return installed ? *installed : solo; }

void install(group* g) { installed = g; }

}  // namespace qkv::devices
