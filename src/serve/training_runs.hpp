// Training runs started from a page: each on a thread of its own, its progress kept as server-sent
// events (a start, a progress event per probe at most ten times a second, the report `qkv train`
// prints, and last the JSON `qkv train --format json` prints for the same options), which any
// number of readers follow.
// One run per visitor at a time, and at most limits::train_runs on the whole server.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "qkv/serve.hpp"
#include "lesson_requests.hpp"

namespace qkv::serve {

struct training_run {
    std::string id, visitor;
    std::mutex m;
    std::condition_variable more;  // an event was added, or the run ended
    std::vector<std::string> events;  // whole SSE messages: "event: …\ndata: …\n\n"
    bool finished = false;
    std::atomic<bool> stop{false};
    std::thread worker;
};

class training_runs {
public:
    explicit training_runs(const limits& l) : limit_(l) {}
    ~training_runs();  // stops every run and waits for it

    // POST /api/train: {"id", "events"}; http_error 409 while the visitor has a run going, 503
    // when the server runs its most, 400 on an option out of range.
    std::string start(const params& p, const std::string& visitor, lang l);
    // The run, or http_error 404.
    std::shared_ptr<training_run> find(const std::string& id);
    // POST /api/train/ID/stop, by the visitor who started it (403 for another).
    void stop(const std::string& id, const std::string& visitor);
    // Every run told to stop (the server is going down); readers see their streams end.
    void stop_all();

private:
    limits limit_;
    std::mutex m_;
    std::map<std::string, std::shared_ptr<training_run>> runs_;
    std::size_t made_ = 0;
};

}  // namespace qkv::serve
