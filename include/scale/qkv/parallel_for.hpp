// Work spread over a few threads for attention at scale: each worker takes the next free task,
// and an exception in any task reaches the caller once all have stopped. The workers beside the
// calling thread are kept from one call to the next.
#pragma once

#include <cstddef>
#include <functional>

namespace qkv {

// fn(task, worker) for task in [0, count), spread over `threads` workers (0 is the calling
// thread) that each take the next free task; worker picks the scratch a task may write.
// An exception in any task stops the handing out and is rethrown once all workers have finished.
// A call made while another holds the kept workers (from inside a task, or from a second thread)
// starts threads of its own.
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t task, int worker)>& fn);

}  // namespace qkv
