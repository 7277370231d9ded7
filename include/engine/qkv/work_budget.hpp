// How much arithmetic one operation of a formula may ask for. Lessons are small by design: a
// formula such as singular_values(randn(16384, 16384, 1)) or Y @ Y @ Y on a 16384 × 16384 Y
// is a mistake (or a prank) that would keep the machine busy for minutes, so it is refused
// with one line before the work starts.
//
// Every built-in states its work from its arguments' shapes before it runs (builtins.hpp: each
// catalogue entry's `work`), plain loops as much as BLAS: softmax_jacobian_norm of a [1, 2·10⁶] row
// is 4·10¹² flops of loops, cosine of two [16384, 4096] matrices 2.2·10¹², fd_gradient grows as n³.
// The evaluator states it (state_work) and is refused before the call. Beside it, the one door to
// BLAS (blas.cpp) and the one to LAPACK (lapack.cpp) still charge each call from its shapes (a
// product m·n·k multiply-adds, 2·m·n·k flops; an SVD ~ 4·m·n·min(m, n) + 8·min(m, n)³ flops as
// Golub and Van Loan count it): a built-in whose statement fell short is still stopped there, and
// the products of higher layers (lesson 18's training) are counted where they run. The two counts
// are held to the limit each on its own, so the statement and the doors never count one flop twice.
#pragma once

#include <stdexcept>

namespace qkv {

// The flops one operation (an @, a call of a built-in) may do: 10^12, some 10 to 60 seconds of
// one core (OpenBLAS's sgemm on large blocks, on small ones), the most a learner should wait for
// one line of a lesson. The largest single operation of the shipped lessons is lesson 18's
// training, 7.0·10^10 flops (measured on every lesson, on every shipped scenario and on 64
// tokens; all the others are under 10^8), 14× inside it; a 16384 × 16384 product
// (2·16384³ = 8.8·10^12) or SVD (~5.3·10^13) is far outside.
constexpr double max_flops_per_operation = 1e12;

// Thrown by charge_work when an operation would go over the limit; the evaluator turns it into
// a formula error that names the file, the line and the formula.
class work_exceeded : public std::runtime_error {
public:
    explicit work_exceeded(double flops);
    double flops() const { return flops_; }  // the operation's estimate so far, with the refused call

private:
    double flops_;
};

// While one lives (on this thread), the work charged is counted against max_flops_per_operation.
// The evaluator opens one around each operation; one opened inside another (a built-in that
// evaluates a formula of its own) adds to the outer count. With none open nothing is limited:
// qkv bench and training on the command line do their real work unmetered.
class operation_work {
public:
    operation_work();
    ~operation_work();
    operation_work(const operation_work&) = delete;
    operation_work& operator=(const operation_work&) = delete;

private:
    bool outermost_;
};

// Charge `flops` to the operation under way, before doing them: throws work_exceeded when the
// operation's total would pass the limit.
void charge_work(double flops);

// What an operation states it will do, as a whole, before it starts (a built-in's work statement):
// throws work_exceeded when the statements of the operation under way pass the limit (a statement
// that is not a number, NaN, is refused too).
void state_work(double flops);

}  // namespace qkv
