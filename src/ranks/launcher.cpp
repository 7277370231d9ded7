// Whether an MPI launcher started this process (ranks.hpp), read from the environment it gives
// each rank: in both builds, so that a qkv without MPI can tell too (and hand such a run to the
// program that has it, src/cli/program_core.cpp).
#include <cstdlib>

#include "qkv/ranks.hpp"

namespace qkv::ranks {

bool launched_by_mpirun() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
        if (std::getenv(v)) return true;
    return false;
}

}  // namespace qkv::ranks
