// A lesson run in-process, as a server calls it: `lesson_in_process [LESSON [TOKENS [RUNS]]]` runs
// lesson LESSON (default 8) on a sentence of TOKENS tokens (default 64) made as `qkv lesson
// --tokens` makes it, RUNS times (default 200) after one warm-up, and prints the median, fastest
// and slowest milliseconds of each part: the run (load the lesson, evaluate it into a trace), the
// text of it, and the course's "what next" that `qkv lesson` adds. A benchmark: it prints figures
// and judges none.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "qkv/blas.hpp"
#include "qkv/course.hpp"
#include "qkv/kernels.hpp"
#include "qkv/lesson.hpp"
#include "qkv/memory.hpp"
#include "qkv/render_format.hpp"
#include "qkv/scenario_gen.hpp"
#include "qkv/trace.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) { return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count(); }

struct figures {
    std::vector<double> ms;
    void print(const char* what) {
        std::sort(ms.begin(), ms.end());
        std::printf("%-28s median %7.3f ms   fastest %7.3f   slowest %7.3f   (%zu runs)\n", what, ms[ms.size() / 2],
                    ms.front(), ms.back(), ms.size());
    }
};

}  // namespace

int main(int argc, char** argv) {
    // as qkv's main() sets them up (console.cpp), and as qkv serve keeps the draws
    qkv::blas::set_threads(1);
    qkv::keep_freed_memory();
    qkv::kernels::keep_draws(std::size_t{64} << 20);  // as qkv serve keeps them (server.cpp)
    const int which = argc > 1 ? std::atoi(argv[1]) : 8;
    const int tokens = argc > 2 ? std::atoi(argv[2]) : 64;
    const int runs = argc > 3 ? std::atoi(argv[3]) : 200;
    std::string path;
    for (auto& [n, p] : qkv::lesson_files(qkv::lessons_dir()))
        if (n == which) path = p;
    if (path.empty() || tokens < 1 || runs < 1) {
        std::fprintf(stderr, "lesson_in_process: no lesson %d, or tokens / runs below 1\n", which);
        return 2;
    }
    qkv::scenario_spec spec;
    for (int i = 0; i < tokens; ++i) {  // t0 … t47: some tokens come twice
        std::string token = "t";
        token += std::to_string(i % 48);
        spec.tokens.push_back(token);
    }
    qkv::scenario_choice given;
    given.made = qkv::generate_scenario(spec);
    given.made_from = spec;
    qkv::render_options o;
    figures run, text, next, whole;
    std::size_t bytes = 0;
    for (int r = 0; r <= runs; ++r) {
        const auto t0 = clock_type::now();
        std::vector<qkv::trace> traces = qkv::run_lessons({path}, given, qkv::lang::en);
        const double t_run = ms_since(t0);
        auto t1 = clock_type::now();
        qkv::add_what_next(traces, qkv::load_course(qkv::lang::en, traces));
        const double t_next = ms_since(t1);
        t1 = clock_type::now();
        const std::string out = qkv::render(traces, qkv::format::text, o);
        const double t_text = ms_since(t1);
        bytes = out.size();
        if (r == 0) continue;  // the warm-up: first touches of the files and of memory
        run.ms.push_back(t_run), next.ms.push_back(t_next), text.ms.push_back(t_text), whole.ms.push_back(ms_since(t0));
    }
    std::printf("lesson %d on %d tokens (%s), %zu bytes of text\n", which, tokens, path.c_str(), bytes);
    run.print("run (load + evaluate)");
    next.print("what next (the course)");
    text.print("text");
    whole.print("all three");
    return 0;
}
