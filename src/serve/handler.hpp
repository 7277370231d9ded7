// A route's handler as the server runs every one: its work, with each refusal and failure turned
// into one JSON error line and its status.
#pragma once

#include <exception>
#include <new>
#include <string>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "qkv/error.hpp"
#include "qkv/i18n.hpp"
#include "qkv/render_json.hpp"
#include "http_error.hpp"

namespace qkv::serve {

inline constexpr const char* json_type = "application/json; charset=utf-8";

// Pages load only what qkv serves, and run no script written inline: a value that escaped
// escaping still could not run.
inline constexpr const char* page_policy =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

inline void send_error(httplib::Response& res, int status, const std::string& message) {
    res.status = status;
    res.set_content(render_json(nlohmann::ordered_json{{"error", message}}, -1) + "\n", json_type);
}

// The language a reply's words are in: the request's lang=zh|en, else the server's.
inline lang reply_language(const httplib::Request& req, lang fallback) {
    const std::string l = req.has_param("lang") ? req.get_param_value("lang") : "";
    return l == "zh" ? lang::zh : l == "en" ? lang::en : fallback;
}

// `work`, its refusals and failures sent as one JSON line in the request's language (`fallback`
// when it names none).
template <class F>
httplib::Server::Handler guarded(lang fallback, F work) {
    return [work, fallback](const httplib::Request& req, httplib::Response& res) {
        const lang l = reply_language(req, fallback);
        try {
            work(req, res);
        } catch (const http_error& e) {
            send_error(res, e.status, e.message.in(l));
        } catch (const input_error& e) {
            send_error(res, 400, e.said_message().in(l));
        } catch (const std::bad_alloc&) {
            send_error(res, 503, tr(l, "out of memory for this request"));
        } catch (const std::exception& e) {
            send_error(res, 500, e.what());
        }
    };
}

}  // namespace qkv::serve
