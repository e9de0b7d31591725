// EventHub: the daemon's jobs' events for their streams (GET /api/v1/events).
//
// A deploy's events (the same JSON as `deploy --json`, deploy_events.h) and
// the daemon's own job events go into the current job's buffer; each stream
// reads from its cursor, so a client that connects late replays the job
// from its start and a slow one never holds the job back. The last
// kKeptJobs jobs keep their buffers, so a stream of a job that just ended
// still gets its last events after the next job has begun. A buffer keeps
// the last kMaxEvents events of its job: a client further behind is told
// how many it missed. Thread-safe.
#pragma once

#include <deque>
#include <map>
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
  // and everything was read, or when the hub no longer keeps `job`.
  EventBatch Since(int64_t job, size_t& cursor) const;
  int64_t job() const;  // the newest job, 0 before the first
  bool Keeps(int64_t job) const;

 private:
  struct JobEvents {
    bool ended = false;
    size_t first = 0;  // sequence number of events.front()
    std::deque<std::string> events;
  };
  void Append(std::string line);  // REQUIRES: mutex_ held

  static constexpr size_t kKeptJobs = 4;
  mutable std::mutex mutex_;
  int64_t job_ = 0;                      // the current (newest) job
  std::map<int64_t, JobEvents> jobs_;    // the newest kKeptJobs jobs
};

}  // namespace clusterctl
