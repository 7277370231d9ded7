// The one door to LAPACK: sgesvd from the OpenBLAS library, which exports LAPACK's symbols.
// LAPACK is column-major; we copy in and out explicitly rather than play transpose tricks.
#include "qkv/lapack.hpp"

#include "qkv/work_budget.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <lapack.h>

namespace qkv::lapack {

namespace {

// Row-major M (r, c) -> column-major buffer with leading dimension r.
std::vector<float> to_col_major(const matrix& M) {
    std::vector<float> out(M.size());
    for (std::size_t i = 0; i < M.rows; ++i)
        for (std::size_t j = 0; j < M.cols; ++j) out[j * M.rows + i] = M(i, j);
    return out;
}

// Column-major buffer (r, c) with leading dimension r -> row-major matrix.
matrix from_col_major(const std::vector<float>& buf, std::size_t r, std::size_t c) {
    matrix M(r, c);
    for (std::size_t i = 0; i < r; ++i)
        for (std::size_t j = 0; j < c; ++j) M(i, j) = buf[j * r + i];
    return M;
}

}  // namespace

svd_result svd(const matrix& A) {
    // sgesvd's iterations never end on a matrix holding both inf and NaN: it must not see one.
    for (std::size_t c = 0; c < A.size(); ++c)
        if (!std::isfinite(A.data[c]))
            throw std::domain_error(fmt::format("A[{}, {}] is {}; the SVD needs finite entries", c / A.cols + 1, c % A.cols + 1,
                                                std::isnan(A.data[c]) ? "NaN" : A.data[c] > 0 ? "inf" : "-inf"));
    const std::size_t r = std::min(A.rows, A.cols);
    // sgesvd with both thin factors: about 4·m·n·r + 8·r³ flops (Golub and Van Loan), before it runs
    charge_work(4.0 * double(A.rows) * double(A.cols) * double(r) + 8.0 * double(r) * double(r) * double(r));
    svd_result out{matrix(A.rows, r), std::vector<float>(r), matrix(r, A.cols)};
    if (r == 0) return out;
    // Column-major: A is (m, n) with lda = m; jobu = jobvt = 'S' asks for the thin factors,
    // U (m, r) with ldu = m and VT (r, n) with ldvt = r.
    const lapack_int m = static_cast<lapack_int>(A.rows), n = static_cast<lapack_int>(A.cols);
    const lapack_int ldu = m, ldvt = static_cast<lapack_int>(r);
    std::vector<float> a = to_col_major(A), u(A.rows * r), vt(r * A.cols);
    const char job = 'S';
    lapack_int info = 0, lwork = -1;
    float query = 0.0f;  // lwork = -1: LAPACK writes the workspace size it wants here
    LAPACK_sgesvd(&job, &job, &m, &n, a.data(), &m, out.sigma.data(), u.data(), &ldu, vt.data(),
                  &ldvt, &query, &lwork, &info);
    if (info != 0) throw std::runtime_error(fmt::format("sgesvd workspace query failed (info = {})", info));
    lwork = static_cast<lapack_int>(query);
    std::vector<float> work(static_cast<std::size_t>(std::max<lapack_int>(lwork, 1)));
    LAPACK_sgesvd(&job, &job, &m, &n, a.data(), &m, out.sigma.data(), u.data(), &ldu, vt.data(),
                  &ldvt, work.data(), &lwork, &info);
    if (info != 0) throw std::runtime_error(fmt::format("sgesvd did not converge (info = {})", info));
    out.U = from_col_major(u, A.rows, r);
    out.Vt = from_col_major(vt, r, A.cols);
    return out;
}

}  // namespace qkv::lapack
