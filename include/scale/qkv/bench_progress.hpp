// How a long measurement tells what it is doing, for a progress line the command draws (nothing
// in scale prints), and how long the rest will take from the time each kind took so far.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qkv::bench {

struct progress {
    enum class step { machine_peak, sgemm_peak, timing, decoding };
    step what = step::timing;
    std::string_view name;               // timing: the implementation or pass ("fused", "backward")
    std::size_t n = 0;                   // timing: the size; decoding: the position of the token
    int run = 0;                         // timing: the counted run under way, from 1
    std::size_t of = 0;                  // decoding: the tokens in all
    std::optional<double> seconds_left;  // timing: what the rest should take, once every kind was timed
};

// Called before each step; an empty one is never called.
using progress_fn = std::function<void(const progress&)>;

// How long a benchmark's remaining measurements will take, from the wall time each kind of
// measurement took per n² so far (attention's work grows as n²): nullopt while some kind still to
// come has not been timed once.
class time_left_estimate {
public:
    void done(const std::string& kind, std::size_t n, double seconds) { per_n2_[kind] = seconds / (double(n) * n); }
    std::optional<double> seconds(const std::vector<std::pair<std::string, std::size_t>>& todo) const;

private:
    std::map<std::string, double> per_n2_;
};

}  // namespace qkv::bench
