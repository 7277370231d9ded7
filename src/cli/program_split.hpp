// qkv is two programs (src/meson.build): `qkv`, every command but two, and `qkv-full`, the same
// commands with the server (cpp-httplib with OpenSSL, SQLite, libqrencode) and real ranks (Open
// MPI) linked in. Loading those libraries cost every command 6 of the 17 ms it took before it did
// anything; a lesson is meant to appear at once. `qkv` hands `qkv serve`, `qkv bench
// --tensor-parallel` and a run under mpirun to qkv-full in the same process (program_core.cpp);
// in qkv-full (program_full.cpp) nothing is handed on.
#pragma once

namespace qkv::cli {

// In qkv: becomes qkv-full (the same process, arguments and environment) when mpirun started
// this process and qkv-full has Open MPI; otherwise returns, as it always does in qkv-full. Before
// anything else in main(): the ranks are MPI's from the start.
void hand_ranks_to_full_program();

}  // namespace qkv::cli
