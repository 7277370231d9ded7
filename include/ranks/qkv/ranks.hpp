// Real ranks: when mpirun started this process (and qkv was built with Open MPI), a session starts
// MPI, offers the ranks as lesson 11's devices (devices.hpp) to whoever runs a command that computes
// on them, and ends MPI when it goes. MPI itself is sealed in one file (src/ranks/mpi_session.cpp;
// one_process_session.cpp when built without it).
#pragma once

#include <cstddef>

#include "qkv/devices.hpp"

namespace qkv::ranks {

// Whether this qkv was built with MPI (meson -Dmpi).
bool built_with_mpi();

// Whether mpirun (or another MPI launcher) started this process: its environment says so.
bool launched_by_mpirun();

// How long a rank waits for one collective before it ends every rank (QKV_RANK_TIMEOUT, seconds;
// 60 by default): a rank that died or stopped never leaves the others waiting.
double collective_timeout();

class session {
public:
    session();  // starts MPI only under mpirun; otherwise this is the one process, rank 0 of 1
    ~session();
    session(const session&) = delete;
    session& operator=(const session&) = delete;

    bool on_ranks() const { return size_ > 1 || started_; }
    std::size_t rank() const { return rank_; }
    std::size_t size() const { return size_; }
    // Only rank 0 prints and reports errors: every rank runs the same lesson on the same data, so
    // an error in the input is the same error on each; ranks other than 0 write to /dev/null.
    bool speaks() const { return rank_ == 0; }
    // The ranks as devices, living as long as the session, for devices::install while a command
    // computes on them; nullptr when this is the one process.
    devices::group* devices() const { return devices_; }

private:
    bool started_ = false;
    std::size_t rank_ = 0, size_ = 1;
    devices::group* devices_ = nullptr;
};

}  // namespace qkv::ranks
