// Where lesson 11's devices are: this one process playing every one of them, or real ranks that a
// layer above installs (src/ranks, under mpirun). The devices group of built-ins (shard,
// all_gather, all_reduce, traffic) speaks only to this, so no lesson and no formula knows MPI.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace qkv::devices {

// What one collective cost this rank: the bytes of the messages it handed to other ranks and got
// from them (counted from each message's element count and type size), and the wall time it took.
struct message_cost {
    std::size_t bytes_sent = 0, bytes_received = 0;
    double seconds = 0;
};

class group {
public:
    virtual ~group() = default;
    virtual std::size_t rank() const = 0;  // from 0
    virtual std::size_t size() const = 0;  // P
    // Every rank's `mine` (the same length on every rank) one after another in rank order -> all
    // [P · mine.size()], on every rank.
    virtual message_cost all_gather(std::span<const float> mine, std::span<float> all) = 0;
    // The entrywise sum of every rank's `mine` -> sum, on every rank.
    virtual message_cost all_reduce_sum(std::span<const float> mine, std::span<float> sum) = 0;
    // A few figures from every rank (the same count on every rank), in rank order, to every rank:
    // what rank 0 prints about the others.
    virtual std::vector<double> all_gather_figures(std::span<const double> mine) = 0;
};

// The ranks in use: those installed, or the one process (rank 0 of 1, nothing ever sent).
group& current();

// Installs g (which must outlive its use) as every built-in's devices; nullptr: the one process again.
void install(group* g);

}  // namespace qkv::devices
