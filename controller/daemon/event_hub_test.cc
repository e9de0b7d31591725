#include "controller/daemon/event_hub.h"

#include <doctest/doctest.h>

namespace clusterctl {
namespace {

TEST_CASE("event hub: a stream of a job that ended gets its last events after the next job began") {
  EventHub hub;
  hub.BeginJob(1, {{"kind", "deploy"}});
  uint64_t cursor = 0;
  EventBatch first = hub.Since(1, cursor);
  CHECK(first.events.size() == 1);  // job_started
  CHECK_FALSE(first.ended);
  hub.Publish({{"event", "recap"}});
  hub.EndJob({{"changed", 3}});
  hub.BeginJob(2, {{"kind", "drift"}});  // before the stream polled again
  hub.Publish({{"event", "from job 2"}});
  EventBatch rest = hub.Since(1, cursor);
  REQUIRE(rest.events.size() == 2);
  CHECK(rest.events[0].data->find("recap") != std::string::npos);
  CHECK(rest.events[1].data->find("job_finished") != std::string::npos);
  CHECK(rest.ended);

  uint64_t late = 0;  // a client connecting late replays job 2 from its start
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
  uint64_t cursor = 0;
  EventBatch gone = hub.Since(1, cursor);
  CHECK(gone.ended);
  CHECK(gone.events.empty());
}

TEST_CASE("event hub: a reader further behind than the buffer is told how many it missed") {
  EventHub hub;
  hub.BeginJob(1, {});
  for (size_t i = 0; i < EventHub::kMaxEvents + 10; ++i) hub.Publish({{"n", i}});
  uint64_t cursor = 0;
  EventBatch batch = hub.Since(1, cursor);
  REQUIRE_FALSE(batch.events.empty());
  CHECK(*batch.events[0].data == "{\"count\":11,\"event\":\"missed\"}");
  CHECK(batch.events.size() == EventHub::kMaxEvents + 1);
}

TEST_CASE("event hub: a string longer than the bound is cut at a character, saying how many bytes were cut") {
  EventHub hub;
  hub.BeginJob(1, {});
  std::string output;
  while (output.size() < 100000) output += "\xc3\xa9";  // é: every other byte is inside a character
  hub.Publish({{"event", "step"}, {"output", "x" + output}, {"short", "kept"}});
  uint64_t cursor = 1;
  const nlohmann::json event = nlohmann::json::parse(*hub.Since(1, cursor).events.at(0).data);
  const std::string cut = event["output"];
  const size_t kept = cut.find("\n[");
  REQUIRE(kept != std::string::npos);
  CHECK(kept == EventHub::kMaxTextBytes - 1);  // the last whole character before the bound
  CHECK(cut.substr(kept) == "\n[" + std::to_string(output.size() + 1 - kept) + " more bytes cut]");
  CHECK(event["short"] == "kept");
}

TEST_CASE("event hub: an event too large with its strings cut keeps its scalar fields and its size") {
  EventHub hub;
  hub.BeginJob(1, {});
  nlohmann::json differences = nlohmann::json::array();
  for (int i = 0; i < 100; ++i) differences.push_back(std::string(EventHub::kMaxTextBytes, 'd'));
  hub.Publish({{"event", "step"}, {"host", "node01"}, {"differences", differences}});
  uint64_t cursor = 1;
  const std::string text = *hub.Since(1, cursor).events.at(0).data;
  CHECK(text.size() < 1024);
  const nlohmann::json event = nlohmann::json::parse(text);
  CHECK(event["event"] == "step");
  CHECK(event["host"] == "node01");
  CHECK(event["cut_bytes"].get<size_t>() > EventHub::kMaxEventBytes);
  CHECK_FALSE(event.contains("differences"));
}

TEST_CASE("event hub: a job keeps at most its bound in bytes; a reader behind it is told how many it missed") {
  EventHub hub;
  hub.BeginJob(1, {});
  const std::string text(EventHub::kMaxTextBytes - 100, 't');
  const size_t published = 2 * EventHub::kMaxJobBytes / EventHub::kMaxTextBytes;
  for (size_t i = 0; i < published; ++i) hub.Publish({{"text", text}});
  uint64_t cursor = 0;
  const EventBatch batch = hub.Since(1, cursor);
  size_t bytes = 0;
  for (size_t i = 1; i < batch.events.size(); ++i) bytes += batch.events[i].data->size();
  CHECK(bytes <= EventHub::kMaxJobBytes);
  CHECK(bytes > EventHub::kMaxJobBytes - EventHub::kMaxTextBytes);
  const nlohmann::json missed = nlohmann::json::parse(*batch.events.at(0).data);
  CHECK(missed["event"] == "missed");
  CHECK(missed["count"].get<size_t>() + batch.events.size() - 1 == published + 1);  // + job_started
}

TEST_CASE("event hub: streams share the job's strings, take at most their batch, and resume after an id") {
  EventHub hub;
  hub.BeginJob(1, {});
  for (int i = 0; i < 10; ++i) hub.Publish({{"n", i}, {"pad", std::string(1000, 'p')}});
  uint64_t first = 0, second = 0;
  const EventBatch a = hub.Since(1, first, 3500);
  const EventBatch b = hub.Since(1, second, 3500);
  REQUIRE(a.events.size() == 4);  // job_started and three of about 1 KiB
  REQUIRE(b.events.size() == 4);
  for (size_t i = 0; i < a.events.size(); ++i) {
    CHECK(a.events[i].data == b.events[i].data);  // the same string, not a copy
    CHECK(a.events[i].id == i + 1);
  }
  CHECK(hub.Since(1, first, 1).events.size() == 1);  // at least one event, whatever the bound

  uint64_t resumed = a.events.back().id;  // Last-Event-ID: the events after it
  const EventBatch rest = hub.Since(1, resumed);
  REQUIRE(rest.events.size() == 7);
  CHECK(rest.events.front().id == a.events.back().id + 1);
}

}  // namespace
}  // namespace clusterctl
