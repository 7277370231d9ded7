// The result-making helpers of the built-ins (builtin_values.hpp) that are not templates.
#include "qkv/builtin_values.hpp"

#include <cmath>

#include "qkv/blas.hpp"
#include "qkv/keep_budget.hpp"

namespace qkv {

namespace {
constexpr std::string_view step_word = translatable("step {}");
}  // namespace

std::string step_label(std::size_t step) { return fmt::format(fmt::runtime(step_word), step); }

std::string step_heading(const std::string& label, lang l) {
    const std::string_view prefix = step_word.substr(0, step_word.find('{'));
    if (!label.starts_with(prefix)) return label;
    return fmt::format(fmt::runtime(tr(l, step_word)), label.substr(prefix.size()));
}

}  // namespace qkv

namespace qkv::builtin_detail {

matrix mm(const matrix& A, const matrix& B) {
    matrix C;
    blas::gemm(C, A, blas::trans::no, B, blas::trans::no);
    return C;
}

matrix mm_t(const matrix& A, const matrix& B) {
    matrix C;
    blas::gemm(C, A, blas::trans::no, B, blas::trans::yes);
    return C;
}

double frobenius(const matrix& M) {
    double sum = 0.0;
    for (float x : M.data) sum += double(x) * double(x);
    return std::sqrt(sum);
}

matrix row_block(const matrix& M, std::size_t r0, std::size_t count) {
    matrix out(count, M.cols);
    std::copy_n(M.row(r0), count * M.cols, out.row(0));
    return out;
}

labels label_block(const labels& l, std::size_t r0, std::size_t count) {
    labels out{{}, l.axis};
    if (l.names.size() >= r0 + count) out.names.assign(l.names.begin() + r0, l.names.begin() + r0 + count);
    return out;
}

value labelled(matrix m, labels rows, labels cols) {
    if (!rows.names.empty() && rows.names.size() != m.rows) rows.names.clear();
    if (!cols.names.empty() && cols.names.size() != m.cols) cols.names.clear();
    return value::of(std::move(m), std::move(rows), std::move(cols));
}

void record(eval_context& ctx, std::string label, std::vector<std::pair<std::string, value>> values) {
    if (!ctx.steps) return;
    // recorded steps are what a run keeps beside its workspace: a decode of n tokens records n of them
    std::size_t more = 0;
    for (const auto& [name, v] : values) more += bytes_of(v);
    check_keep(ctx, more);
    ctx.steps->push_back({std::move(label), std::move(values)});
    ctx.recorded_bytes += more;
}

}  // namespace qkv::builtin_detail
