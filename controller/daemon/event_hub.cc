#include "controller/daemon/event_hub.h"

#include "common/json_text.h"

namespace clusterctl {

void EventHub::BeginJob(int64_t job, nlohmann::json description) {
  std::lock_guard<std::mutex> lock(mutex_);
  job_ = job;
  jobs_[job] = JobEvents{};
  while (jobs_.size() > kKeptJobs) jobs_.erase(jobs_.begin());
  description["event"] = "job_started";
  description["job"] = job;
  Append(JsonText(description));
}

void EventHub::EndJob(nlohmann::json summary) {
  std::lock_guard<std::mutex> lock(mutex_);
  Append(JsonText(nlohmann::json{{"event", "job_finished"}, {"job", job_}, {"summary", std::move(summary)}}));
  if (auto it = jobs_.find(job_); it != jobs_.end()) it->second.ended = true;
}

void EventHub::OnEvent(const DeployEvent& event) {
  std::string line = JsonText(EventToJson(event, false));
  std::lock_guard<std::mutex> lock(mutex_);
  Append(std::move(line));
}

void EventHub::Publish(nlohmann::json event) {
  std::string line = JsonText(event);
  std::lock_guard<std::mutex> lock(mutex_);
  Append(std::move(line));
}

void EventHub::Append(std::string line) {
  auto it = jobs_.find(job_);
  if (it == jobs_.end()) return;  // no job yet
  JobEvents& job = it->second;
  job.events.push_back(std::move(line));
  if (job.events.size() > kMaxEvents) {
    job.events.pop_front();
    ++job.first;
  }
}

EventBatch EventHub::Since(int64_t job, size_t& cursor) const {
  std::lock_guard<std::mutex> lock(mutex_);
  EventBatch batch;
  auto it = jobs_.find(job);
  if (it == jobs_.end()) {
    batch.ended = true;
    return batch;
  }
  const JobEvents& events = it->second;
  if (cursor < events.first) {
    batch.events.push_back(JsonText(nlohmann::json{{"event", "missed"}, {"count", events.first - cursor}}));
    cursor = events.first;
  }
  for (size_t i = cursor - events.first; i < events.events.size(); ++i) batch.events.push_back(events.events[i]);
  cursor = events.first + events.events.size();
  batch.ended = events.ended;
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
