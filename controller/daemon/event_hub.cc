#include "controller/daemon/event_hub.h"

#include "common/json_text.h"
#include "common/strings.h"

namespace clusterctl {
namespace {

// Cuts every string in `value` longer than kMaxTextBytes at a character,
// ending it with a line that says how many bytes were cut.
void CutLongStrings(nlohmann::json& value) {
  if (value.is_string()) {
    std::string& text = value.get_ref<std::string&>();
    if (text.size() <= EventHub::kMaxTextBytes) return;
    const size_t kept = Utf8Prefix(text, EventHub::kMaxTextBytes).size();
    text = text.substr(0, kept) + "\n[" + std::to_string(text.size() - kept) + " more bytes cut]";
  } else if (value.is_structured()) {
    for (nlohmann::json& item : value) CutLongStrings(item);
  }
}

// What is left of an event too large even with its strings cut: its scalar
// fields (event, host, job, ...) and how many bytes it had.
nlohmann::json ScalarFields(const nlohmann::json& event, size_t bytes) {
  nlohmann::json kept = nlohmann::json::object();
  for (const auto& [key, value] : event.items()) {
    if (!value.is_structured()) kept[key] = value;
  }
  kept["cut_bytes"] = bytes;
  return kept;
}

// The event's JSON text within the hub's bounds (event_hub.h).
std::string BoundedEventText(nlohmann::json event) {
  CutLongStrings(event);
  std::string text = JsonText(event);
  if (text.size() <= EventHub::kMaxEventBytes || !event.is_object()) return text;
  return JsonText(ScalarFields(event, text.size()));
}

}  // namespace

void EventHub::BeginJob(int64_t job, nlohmann::json description) {
  description["event"] = "job_started";
  description["job"] = job;
  std::string line = BoundedEventText(std::move(description));
  std::lock_guard<std::mutex> lock(mutex_);
  job_ = job;
  jobs_[job] = JobEvents{};
  while (jobs_.size() > kKeptJobs) jobs_.erase(jobs_.begin());
  Append(std::move(line));
}

void EventHub::EndJob(nlohmann::json summary) {
  std::lock_guard<std::mutex> lock(mutex_);
  Append(BoundedEventText({{"event", "job_finished"}, {"job", job_}, {"summary", std::move(summary)}}));
  if (auto it = jobs_.find(job_); it != jobs_.end()) it->second.ended = true;
}

void EventHub::OnEvent(const DeployEvent& event) {
  std::string line = BoundedEventText(EventToJson(event, false));
  std::lock_guard<std::mutex> lock(mutex_);
  Append(std::move(line));
}

void EventHub::Publish(nlohmann::json event) {
  std::string line = BoundedEventText(std::move(event));
  std::lock_guard<std::mutex> lock(mutex_);
  Append(std::move(line));
}

void EventHub::Append(std::string line) {
  auto it = jobs_.find(job_);
  if (it == jobs_.end()) return;  // no job yet
  JobEvents& job = it->second;
  job.bytes += line.size();
  job.events.push_back(std::make_shared<const std::string>(std::move(line)));
  while (job.events.size() > 1 && (job.events.size() > kMaxEvents || job.bytes > kMaxJobBytes)) {
    job.bytes -= job.events.front()->size();
    job.events.pop_front();
    ++job.first;
  }
}

EventBatch EventHub::Since(int64_t job, uint64_t& cursor, size_t max_bytes) const {
  std::lock_guard<std::mutex> lock(mutex_);
  EventBatch batch;
  auto it = jobs_.find(job);
  if (it == jobs_.end()) {
    batch.ended = true;
    return batch;
  }
  const JobEvents& events = it->second;
  if (cursor < events.first) {
    const std::string missed = JsonText(nlohmann::json{{"event", "missed"}, {"count", events.first - cursor}});
    batch.events.push_back({0, std::make_shared<const std::string>(missed)});
    cursor = events.first;
  }
  const uint64_t end = events.first + events.events.size();
  size_t bytes = 0;
  for (; cursor < end; ++cursor) {
    const std::shared_ptr<const std::string>& event = events.events[cursor - events.first];
    if (!batch.events.empty() && bytes + event->size() > max_bytes) break;
    bytes += event->size();
    batch.events.push_back({cursor + 1, event});
  }
  cursor = std::min(cursor, end);
  batch.ended = events.ended && cursor == end;
  return batch;
}

int64_t EventHub::job() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return job_;
}

bool EventHub::Keeps(int64_t job) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return jobs_.count(job) > 0;
}

}  // namespace clusterctl
