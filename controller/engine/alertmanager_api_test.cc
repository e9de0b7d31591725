// Alertmanager's API as the maintenance silences speak it: the silence's
// body, and its replies read as hostile input (never an exception).
#include "controller/engine/alertmanager_api.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

namespace clusterctl {
namespace {

TEST_CASE("a maintenance silence matches the node and its cluster, from now until its end") {
  const std::string body = SilenceBody({"gpu-a", "node03", "clusterctl: rebooting nvidia-driver/reboot",
                                        1795733284123, 1795733284123 + 45 * 60000});
  const nlohmann::json json = nlohmann::json::parse(body);
  const nlohmann::json matchers = {
      {{"name", "cluster"}, {"value", "gpu-a"}, {"isRegex", false}, {"isEqual", true}},
      {{"name", "node"}, {"value", "node03"}, {"isRegex", false}, {"isEqual", true}},
  };
  CHECK(json["matchers"] == matchers);
  CHECK(json["startsAt"] == "2026-11-26T22:48:04.123Z");
  CHECK(json["endsAt"] == "2026-11-26T23:33:04.123Z");
  CHECK(json["createdBy"] == "clusterctl");
  CHECK(json["comment"] == "clusterctl: rebooting nvidia-driver/reboot");
  // A host name with characters JSON escapes stays one value (no matcher injection).
  const nlohmann::json odd = nlohmann::json::parse(SilenceBody({"c", "n\"}],x", "", 0, 1000}));
  CHECK(odd["matchers"][1]["value"] == "n\"}],x");
  CHECK(Rfc3339(0) == "1970-01-01T00:00:00.000Z");
}

TEST_CASE("the silence's id is read from Alertmanager's answer; anything else is an error with a message") {
  Result<std::string> id = ReadSilenceId(R"({"silenceID":"5f0c2a5e-7d0b-4a43-9b5e-4c3f1f2d8a11"})");
  REQUIRE(id.ok());
  CHECK(*id == "5f0c2a5e-7d0b-4a43-9b5e-4c3f1f2d8a11");
  const std::string huge = "{\"silenceID\":\"" + std::string(2 << 20, 'a') + "\"}";
  for (const std::string& broken :
       {std::string(""), std::string("not json"), std::string("[]"), std::string("null"), std::string("{}"),
        std::string(R"({"silenceID":42})"), std::string(R"({"silenceID":""})"),
        std::string(R"({"silenceID":"../../api/v2/status"})"), std::string(R"({"silenceID":"a b"})"),
        std::string(R"({"silenceID":")") + std::string(65, 'a') + "\"}", std::string("{\"silenceID\":\"a\""), huge}) {
    CAPTURE(broken.substr(0, 60));
    Result<std::string> read = ReadSilenceId(broken);
    CHECK_FALSE(read.ok());
    CHECK(read.status().message().find("Alertmanager") != std::string::npos);
  }
}

TEST_CASE("the node's firing alerts are counted from Alertmanager's list; a broken list is an error") {
  // As Alertmanager 0.25 answers GET /api/v2/alerts (trimmed).
  const char* listed = R"([
    {"annotations":{"summary":"A node exporter does not answer"},"endsAt":"2026-11-26T23:00:00.000Z",
     "fingerprint":"1f2e","receivers":[{"name":"testbed"}],"startsAt":"2026-11-26T22:50:00.000Z",
     "status":{"inhibitedBy":[],"silencedBy":["5f0c"],"state":"suppressed"},"updatedAt":"2026-11-26T22:56:00.000Z",
     "labels":{"alertname":"NodeDown","cluster":"t","node":"node03","severity":"critical"}},
    {"labels":{"alertname":"ExporterDown","node":"node03"},"status":{"inhibitedBy":[],"silencedBy":[],"state":"active"}}
  ])";
  Result<size_t> firing = ReadFiringAlerts(listed);
  REQUIRE(firing.ok());
  CHECK(*firing == 2);
  Result<size_t> none = ReadFiringAlerts("[]");
  REQUIRE(none.ok());
  CHECK(*none == 0);
  for (const char* broken : {"", "{}", "[1]", R"([{"status":{}}])", R"([{"status":{"state":3}}])", "[{", "null"}) {
    CAPTURE(broken);
    Result<size_t> read = ReadFiringAlerts(broken);
    CHECK_FALSE(read.ok());
    CHECK(read.status().message().find("Alertmanager's list of alerts") != std::string::npos);
  }
}

TEST_CASE("the query for a node's alerts filters by cluster and node, percent-encoded") {
  CHECK(NodeAlertsTarget("gpu-a", "node03") ==
        "/api/v2/alerts?active=true&silenced=true&inhibited=true&unprocessed=true"
        "&filter=cluster%3D%22gpu-a%22&filter=node%3D%22node03%22");
  CHECK(NodeAlertsTarget("c", "a&b c").find("node%3D%22a%26b%20c%22") != std::string::npos);
}

}  // namespace
}  // namespace clusterctl
