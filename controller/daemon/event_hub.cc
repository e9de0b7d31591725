#include "controller/daemon/event_hub.h"

#include "common/json_text.h"

namespace clusterctl {

void EventHub::BeginJob(int64_t job, nlohmann::json description) {
  std::lock_guard<std::mutex> lock(mutex_);
  job_ = job;
  ended_ = false;
  first_ = 0;
  events_.clear();
  description["event"] = "job_started";
  description["job"] = job;
  Append(JsonText(description));
}

void EventHub::EndJob(nlohmann::json summary) {
  std::lock_guard<std::mutex> lock(mutex_);
  Append(JsonText(nlohmann::json{{"event", "job_finished"}, {"job", job_}, {"summary", std::move(summary)}}));
  ended_ = true;
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
  events_.push_back(std::move(line));
  if (events_.size() > kMaxEvents) {
    events_.pop_front();
    ++first_;
  }
}

EventBatch EventHub::Since(int64_t job, size_t& cursor) const {
  std::lock_guard<std::mutex> lock(mutex_);
  EventBatch batch;
  if (job != job_) {
    batch.ended = true;
    return batch;
  }
  if (cursor < first_) {
    batch.events.push_back(JsonText(nlohmann::json{{"event", "missed"}, {"count", first_ - cursor}}));
    cursor = first_;
  }
  for (size_t i = cursor - first_; i < events_.size(); ++i) batch.events.push_back(events_[i]);
  cursor = first_ + events_.size();
  batch.ended = ended_;
  return batch;
}

int64_t EventHub::job() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return job_;
}

}  // namespace clusterctl
