// EventHub: the daemon's jobs' events for their streams (GET /api/v1/events).
//
// A deploy's events (the same JSON as `deploy --json`, deploy_events.h) and
// the daemon's own job events go into the current job's buffer; each stream
// reads from its cursor, so a client that connects late replays the job
// from its start and a slow one never holds the job back. The buffer keeps
// the last kMaxEvents events of a job: a client further behind is told how
// many it missed. Thread-safe.
#pragma once

#include <deque>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "controller/daemon/http_server.h"
#include "controller/engine/deploy_events.h"

namespace clusterctl {

class EventHub final : public DeployListener {
 public:
  static constexpr size_t kMaxEvents = 50000;

  // A new job: its events replace the last job's.
  void BeginJob(int64_t job, nlohmann::json description);
  // The job's last event (it carries `summary`); its streams end after it.
  void EndJob(nlohmann::json summary);

  void OnEvent(const DeployEvent& event) override;
  void Publish(nlohmann::json event);

  // Events of `job` after `cursor` (advanced); ended once the job finished
  // and everything was read, or when `job` is no longer the hub's job.
  EventBatch Since(int64_t job, size_t& cursor) const;
  int64_t job() const;

 private:
  void Append(std::string line);  // REQUIRES: mutex_ held

  mutable std::mutex mutex_;
  int64_t job_ = 0;
  bool ended_ = true;
  size_t first_ = 0;  // sequence number of events_.front()
  std::deque<std::string> events_;
};

}  // namespace clusterctl
