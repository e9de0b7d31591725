#include "controller/state/stored_words.h"

#include <string>
#include <utility>

namespace clusterctl {
namespace {

template <typename E, size_t N>
struct WordTable {
  std::string_view column;
  std::pair<E, std::string_view> words[N];
};

constexpr WordTable<RunStatus, 4> kRunStatus{"runs.status",
                                             {{RunStatus::kRunning, "running"},
                                              {RunStatus::kOk, "ok"},
                                              {RunStatus::kFailed, "failed"},
                                              {RunStatus::kInterrupted, "interrupted"}}};
constexpr WordTable<HostStatus, 5> kHostStatus{"hosts.status",
                                               {{HostStatus::kNever, "never"},
                                                {HostStatus::kOk, "ok"},
                                                {HostStatus::kFailed, "failed"},
                                                {HostStatus::kUnreachable, "unreachable"},
                                                {HostStatus::kRemoved, "removed"}}};
constexpr WordTable<StepStatus, 5> kStepStatus{"steps.status",
                                               {{StepStatus::kOk, "ok"},
                                                {StepStatus::kChanged, "changed"},
                                                {StepStatus::kFailed, "failed"},
                                                {StepStatus::kSkipped, "skipped"},
                                                {StepStatus::kWouldChange, "would-change"}}};
constexpr WordTable<CheckOutcome, 3> kCheckOutcome{
    "validations.result", {{CheckOutcome::kPass, "pass"}, {CheckOutcome::kFail, "fail"}, {CheckOutcome::kSkip, "skip"}}};
constexpr WordTable<CheckScope, 3> kCheckScope{
    "validations.scope", {{CheckScope::kCluster, "cluster"}, {CheckScope::kNode, "node"}, {CheckScope::kPair, "pair"}}};

template <typename E, size_t N>
std::string_view WordOf(const WordTable<E, N>& table, E value) {
  for (const auto& [e, word] : table.words) {
    if (e == value) return word;
  }
  return "?";  // every enumerator has its word (stored_words_test)
}

template <typename E, size_t N>
Status Read(const WordTable<E, N>& table, std::string_view word, E& out) {
  std::string known;
  for (const auto& [e, w] : table.words) {
    if (w == word) {
      out = e;
      return Status::Ok();
    }
    known += (known.empty() ? "" : ", ") + std::string(w);
  }
  constexpr size_t kShown = 40;  // a hand-edited state may hold anything
  std::string shown(word.substr(0, kShown));
  if (word.size() > kShown) shown += "...";
  return Status::Corruption(std::string(table.column) + " is '" + shown + "', which this clusterctl does not know (" +
                            known + ")");
}

}  // namespace

std::string_view StoredWord(RunStatus status) { return WordOf(kRunStatus, status); }
std::string_view StoredWord(HostStatus status) { return WordOf(kHostStatus, status); }
std::string_view StoredWord(StepStatus status) { return WordOf(kStepStatus, status); }
std::string_view StoredWord(CheckOutcome outcome) { return WordOf(kCheckOutcome, outcome); }
std::string_view StoredWord(CheckScope scope) { return WordOf(kCheckScope, scope); }

Status FromStoredWord(std::string_view word, RunStatus& out) { return Read(kRunStatus, word, out); }
Status FromStoredWord(std::string_view word, HostStatus& out) { return Read(kHostStatus, word, out); }
Status FromStoredWord(std::string_view word, StepStatus& out) { return Read(kStepStatus, word, out); }
Status FromStoredWord(std::string_view word, CheckOutcome& out) { return Read(kCheckOutcome, word, out); }
Status FromStoredWord(std::string_view word, CheckScope& out) { return Read(kCheckScope, word, out); }

}  // namespace clusterctl
