// Alertmanager's and Prometheus's APIs as the maintenance silences speak
// them: the silence's body, the query, and their replies read as hostile
// input (never an exception).
#include "controller/engine/monitoring_api.h"

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

TEST_CASE("what holds a maintenance silence open is one Prometheus query: not scraped since, down, or a new alert") {
  const std::string target = MaintenanceHoldsTarget("node03", 1795733300, 42);
  CHECK(target ==
        "/api/v1/query?query=%28timestamp%28up%7Bnode%3D%22node03%22%7D%29%20%3C%201795733300%29%20or%20%28up%7Bnode%3D"
        "%22node03%22%7D%20%3D%3D%200%29%20or%20%28ALERTS%7Bnode%3D%22node03%22%7D%20unless%20on%28alertname%29%20%28"
        "ALERTS%7Bnode%3D%22node03%22%7D%20offset%2042s%29%29");
  // A quote or backslash in a name stays inside the PromQL string.
  CHECK(MaintenanceHoldsTarget("a\"b\\", 1, 0).find("node%3D%22a%5C%22b%5C%5C%22") != std::string::npos);
  CHECK(MaintenanceHoldsTarget("n", 1, 0).find("offset%201s") != std::string::npos);  // never "offset 0s"
}

TEST_CASE("Prometheus's vector result is counted; anything else is an error with a message") {
  // As Prometheus 2.42 answers (trimmed): node03's NodeDown, raised during the maintenance, still firing.
  const char* holding = R"({"status":"success","data":{"resultType":"vector","result":[
    {"metric":{"__name__":"ALERTS","alertname":"NodeDown","alertstate":"firing","instance":"10.213.78.13:9100",
     "job":"node","node":"node03","severity":"critical"},"value":[1795733301.123,"1"]}]}})";
  Result<size_t> holds = ReadVectorSize(holding);
  REQUIRE(holds.ok());
  CHECK(*holds == 1);
  Result<size_t> none = ReadVectorSize(R"({"status":"success","data":{"resultType":"vector","result":[]}})");
  REQUIRE(none.ok());
  CHECK(*none == 0);
  for (const char* broken :
       {"", "[]", "{}", R"({"status":"error","errorType":"bad_data","error":"parse error"})",
        R"({"status":"success","data":{"resultType":"matrix","result":[]}})",
        R"({"status":"success","data":{"resultType":"vector","result":{}}})", R"({"status":1,"data":{}})",
        R"({"status":"success","data":{"resultType":7,"result":[]}})", R"({"status":"success","data":[]})", "{\"status\""}) {
    CAPTURE(broken);
    Result<size_t> read = ReadVectorSize(broken);
    CHECK_FALSE(read.ok());
    CHECK(read.status().message().find("Prometheus's answer to the query") != std::string::npos);
  }
}

}  // namespace
}  // namespace clusterctl
