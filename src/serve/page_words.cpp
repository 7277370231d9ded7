// The page's own words (buttons, labels, the keys' help) in the visitor's language, from the same
// catalogues as the terminal's: the page holds no sentence of its own.
#include "page_words.hpp"

#include <nlohmann/json.hpp>

#include "qkv/render_json.hpp"

namespace qkv::serve {

std::string page_words_json(lang l) {
    const std::pair<std::string_view, std::string_view> words[] = {
        {"lessons", translatable("Lessons")},
        {"stage", translatable("stage")},
        {"next", translatable("Next")},
        {"back", translatable("Back")},
        {"sentence", translatable("Your sentence (tokens separated by spaces)")},
        {"run", translatable("Run")},
        {"own", translatable("the lesson's own scenario")},
        {"scenario", translatable("Scenario")},
        {"present", translatable("Projector view")},
        {"train", translatable("Train a transformer")},
        {"start", translatable("Start")},
        {"stop", translatable("Stop")},
        {"steps", translatable("Steps")},
        {"seed", translatable("Seed")},
        {"sizes", translatable("With your sentence: the random weights' seed and sizes (blank: seed 1, d_model 4, 2 heads)")},
        {"head_count", translatable("Heads")},
        {"loss", translatable("loss")},
        {"heads", translatable("Every head's attention on the held-out sequence")},
        {"previous_token", translatable("previous-token")},
        {"induction", translatable("induction")},
        {"point", translatable("Point at a number, or tap it, to see how the engine computed it.")},
        {"keys", translatable("Keys: n, Enter, space or → next · b or ← back · g then a number: that stage · p projector · q lessons · ? these keys")},
        {"working", translatable("Computing…")},
        {"error", translatable("Refused")},
        {"save", translatable("The scenario of your sentence, to keep as a file (qkv lesson --data FILE):")},
        {"finished", translatable("finished")},
        {"drop", translatable("the drop")},
        {"report", translatable("The report qkv train prints for this run")},
        // the class pages (qkv serve --class): /class, /class/teacher, /class/present
        {"class_student_title", translatable("Class")},
        {"class_join", translatable("Join the class")},
        {"class_name", translatable("Your name")},
        {"class_code", translatable("Class code")},
        {"class_leave", translatable("Leave")},
        {"class_offline", translatable("The server does not answer; trying again…")},
        {"class_waiting", translatable("Waiting for the teacher to open a lesson…")},
        {"class_exercises", translatable("Exercises")},
        {"class_no_exercises", translatable("No exercises open yet.")},
        {"class_your_answer", translatable("Your answer")},
        {"class_number_help", translatable("A number, e.g. 0.25")},
        {"class_shape_help", translatable("A shape, e.g. [3, 4]")},
        {"class_matrix_help", translatable("A matrix as numpy prints it, or [[1, 2], [3, 4]]")},
        {"class_check", translatable("Check")},
        {"class_hint", translatable("Hint")},
        {"class_solution", translatable("Solution")},
        {"class_right", translatable("right")},
        {"class_verdict_right", translatable("Right!")},
        {"class_not_yet", translatable("Not yet")},
        {"class_not_tried", translatable("not tried")},
        {"class_wrong", translatable("wrong")},
        {"class_correct", translatable("correct")},
        {"class_attempts", translatable("attempts:")},
        {"class_hints_seen", translatable("hints seen:")},
        {"class_no_more_hints", translatable("No more hints.")},
        {"class_closed", translatable("Closed by the teacher")},
        {"class_released", translatable("The solution is released")},
        {"class_teacher", translatable("Teacher")},
        {"class_no_token", translatable("This page needs the teacher's link the terminal printed (…/class/teacher#t=…).")},
        {"class_join_here", translatable("Join at this address with this code")},
        {"class_lesson", translatable("Lesson")},
        {"class_open_lesson", translatable("Open")},
        {"class_export_csv", translatable("Download CSV")},
        {"class_export_json", translatable("Download JSON")},
        {"class_students", translatable("Students")},
        {"class_student", translatable("Student")},
        {"class_no_students", translatable("No one has joined yet.")},
        {"class_students_word", translatable("students")},
        {"class_answered", translatable("answered")},
        {"class_questions", translatable("Questions")},
        {"class_mistakes", translatable("Commonest mistakes")},
        {"class_close", translatable("Close")},
        {"class_reopen", translatable("Reopen")},
        {"class_release", translatable("Release the solution")},
        {"class_withdraw", translatable("Withdraw the solution")},
        {"class_answers_total", translatable("Answers stored")},
    };
    nlohmann::ordered_json out;
    out["lang"] = std::string(lang_code(l));
    for (const auto& [key, english] : words) out[std::string(key)] = tr(l, english);
    return render_json(out, -1);
}

}  // namespace qkv::serve
