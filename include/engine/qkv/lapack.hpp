// The one door to LAPACK (the copy inside OpenBLAS): the singular value decomposition for the
// low-rank lesson. Like blas.hpp, no Fortran call and no leading dimension exists anywhere else.
#pragma once

#include <vector>

#include "qkv/matrix.hpp"

namespace qkv::lapack {

// A (m, n) = U (m, r) · diag(sigma) · Vt (r, n), r = min(m, n), sigma largest first.
struct svd_result {
    matrix U;
    std::vector<float> sigma;
    matrix Vt;
};

// The thin SVD of A (LAPACK sgesvd). Throws std::domain_error, before LAPACK sees A, when an
// entry is inf or NaN (sgesvd would spin for ever on both), and std::runtime_error when LAPACK
// reports failure (it does not converge, which for finite input does not happen in practice).
svd_result svd(const matrix& A);

}  // namespace qkv::lapack
