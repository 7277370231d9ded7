// The lesson requests of the HTTP API: a request's query (its parameters, decoded) read into what
// to run (a lesson, a language, a scenario), checked against the server's limits, run by the
// engine, and answered with JSON. Every refusal is an http_error.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "qkv/lesson.hpp"
#include "qkv/serve.hpp"

namespace qkv::serve {

using params = std::multimap<std::string, std::string>;

// GET /api/lessons
std::string lessons_json(const params& p, const options& o);
// GET /api/lesson/N: the stages as a page shows them ({"stages": [{"index", "title", "formula",
// "html"}], …}), or with format=json the trace `qkv lesson N --format json` prints.
std::string lesson_json(const std::string& number, const params& p, const options& o);
// GET /api/cell: {"name", "head", "row", "col", "row_label", "col_label", "stage", "cell",
// "statement", "op", "terms", "lines"}: how one number a stage shows was made.
std::string cell_json(const params& p, const options& o);
// GET /api/scenarios: {"scenarios": ["apple", …]}
std::string scenarios_json(const options& o);
// GET /api/colours: {"colours": ["#440154", …]} 256 of them, weight 0 to 1
std::string colours_json();

// Lesson n as read from its file (kept while the file is unchanged), or http_error 404.
std::shared_ptr<const lesson> lesson_numbered(int n);

// The one value of a parameter, or `fallback` when the query lacks it; http_error 400 when the
// query gives it twice or it is not UTF-8.
std::string param(const params& p, const std::string& name, const std::string& fallback = "");
// A whole number from lo to hi; http_error 400 naming the parameter otherwise.
long long number_param(const params& p, const std::string& name, long long fallback, long long lo, long long hi);
// lang=zh|en, or the server's.
lang language_of(const params& p, const options& o);

}  // namespace qkv::serve
