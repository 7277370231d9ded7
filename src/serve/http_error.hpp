// What a request asked that the server will not do: its HTTP status (4xx) and one line saying
// why, worded in the request's language when it is sent as {"error": "…"}. Handlers throw it; the
// server turns it into the response. refuse(status, said("…")) throws one.
#pragma once

#include <utility>

#include "qkv/sentence.hpp"

namespace qkv::serve {

struct http_error {
    int status = 400;
    sentence message;
};

[[noreturn]] inline void refuse(int status, sentence message) { throw http_error{status, std::move(message)}; }

}  // namespace qkv::serve
