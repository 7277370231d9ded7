// The work one operation of a formula may do (work_budget.hpp): a count per thread, opened by
// the evaluator around each operation, stated by the operation and charged by the doors to BLAS and LAPACK.
#include "qkv/work_budget.hpp"

#include <fmt/format.h>

namespace qkv {

namespace {

// Per thread: a lesson runs on one thread, and a bench or a training run on other threads,
// which open no operation, must not be limited by it (nor race on the count).
struct meter {
    bool open = false;
    double flops = 0;   // charged by the doors to BLAS and LAPACK
    double stated = 0;  // stated by the operation itself, before it started
};
thread_local meter the_meter;

}  // namespace

work_exceeded::work_exceeded(double flops)
    : std::runtime_error(fmt::format("an operation of {:.3g} flops, more than the {:.3g} allowed", flops, max_flops_per_operation)),
      flops_(flops) {}

operation_work::operation_work() : outermost_(!the_meter.open) {
    if (outermost_) the_meter = {true, 0, 0};
}

operation_work::~operation_work() {
    if (outermost_) the_meter = {};
}

void charge_work(double flops) {
    if (!the_meter.open) return;
    the_meter.flops += flops;
    if (the_meter.flops > max_flops_per_operation) throw work_exceeded(the_meter.flops);
}

void state_work(double flops) {
    if (!the_meter.open) return;
    the_meter.stated += flops;
    if (!(the_meter.stated <= max_flops_per_operation)) throw work_exceeded(the_meter.stated);
}

}  // namespace qkv
