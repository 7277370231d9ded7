// In qkv-full (program_split.hpp): the server and the ranks are here; nothing is handed on.
#include "program_split.hpp"

namespace qkv::cli {

void hand_ranks_to_full_program() {}

}  // namespace qkv::cli
