#include "controller/daemon/event_hub.h"

#include <doctest/doctest.h>

namespace clusterctl {
namespace {

TEST_CASE("event hub: a stream of a job that ended gets its last events after the next job began") {
  EventHub hub;
  hub.BeginJob(1, {{"kind", "deploy"}});
  size_t cursor = 0;
  EventBatch first = hub.Since(1, cursor);
  CHECK(first.events.size() == 1);  // job_started
  CHECK_FALSE(first.ended);
  hub.Publish({{"event", "recap"}});
  hub.EndJob({{"changed", 3}});
  hub.BeginJob(2, {{"kind", "drift"}});  // before the stream polled again
  hub.Publish({{"event", "from job 2"}});
  EventBatch rest = hub.Since(1, cursor);
  REQUIRE(rest.events.size() == 2);
  CHECK(rest.events[0].find("recap") != std::string::npos);
  CHECK(rest.events[1].find("job_finished") != std::string::npos);
  CHECK(rest.ended);

  size_t late = 0;  // a client connecting late replays job 2 from its start
  EventBatch replay = hub.Since(2, late);
  CHECK(replay.events.size() == 2);
  CHECK_FALSE(replay.ended);
}

TEST_CASE("event hub: old jobs are forgotten; a stream of one ends") {
  EventHub hub;
  for (int64_t job = 1; job <= 6; ++job) {
    hub.BeginJob(job, {});
    hub.EndJob({});
  }
  CHECK(hub.job() == 6);
  CHECK_FALSE(hub.Keeps(1));
  CHECK(hub.Keeps(3));
  size_t cursor = 0;
  EventBatch gone = hub.Since(1, cursor);
  CHECK(gone.ended);
  CHECK(gone.events.empty());
}

TEST_CASE("event hub: a reader further behind than the buffer is told how many it missed") {
  EventHub hub;
  hub.BeginJob(1, {});
  for (size_t i = 0; i < EventHub::kMaxEvents + 10; ++i) hub.Publish({{"n", i}});
  size_t cursor = 0;
  EventBatch batch = hub.Since(1, cursor);
  REQUIRE_FALSE(batch.events.empty());
  CHECK(batch.events[0] == "{\"count\":11,\"event\":\"missed\"}");
  CHECK(batch.events.size() == EventHub::kMaxEvents + 1);
}

}  // namespace
}  // namespace clusterctl
