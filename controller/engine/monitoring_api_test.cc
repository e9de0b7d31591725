// Alertmanager's and Prometheus's APIs as the maintenance silences speak
// them: the silence's body, the query, and their replies read as hostile
// input (never an exception).
#include "controller/engine/monitoring_api.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <utility>
#include <vector>

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

// A Prometheus 2.42 instant-query reply (trimmed) with these series, each
// {"metric": METRIC, "value": [time, VALUE]}.
std::string Vector(const std::vector<std::pair<std::string, std::string>>& series) {
  std::string result;
  for (const auto& [metric, value] : series) {
    result += std::string(result.empty() ? "" : ",") + R"({"metric":)" + metric + R"(,"value":[1795733301.123,")" +
              value + R"("]})";
  }
  return R"({"status":"success","data":{"resultType":"vector","result":[)" + result + "]}}";
}
const char* kNodeUp = R"({"__name__":"up","instance":"10.213.78.12:9100","job":"node","node":"node02"})";
const char* kDcgm = R"({"__name__":"up","instance":"10.213.78.12:9400","job":"dcgm","node":"node02"})";
const char* kDcgmScraped = R"({"instance":"10.213.78.12:9400","job":"dcgm","node":"node02"})";  // timestamp()
const char* kNodeDown = R"({"__name__":"ALERTS","alertname":"NodeDown","alertstate":"firing","node":"node02"})";
const char* kNoMount = R"({"__name__":"ALERTS","alertname":"MountMissing","alertstate":"firing","node":"node02"})";

TEST_CASE("what Prometheus sees of a node is two queries: its health when the silence opens, what is unhealthy after") {
  CHECK(NodeHealthTarget("node03") ==
        "/api/v1/query?query=up%7Bnode%3D%22node03%22%7D%20or%20ALERTS%7Bnode%3D%22node03%22%7D");
  CHECK(UnhealthyTarget("node03", 1795733300) ==
        "/api/v1/query?query=%28timestamp%28up%7Bnode%3D%22node03%22%7D%29%20%3C%201795733300%29%20or%20%28up%7Bnode%3D"
        "%22node03%22%7D%20%3D%3D%200%29%20or%20ALERTS%7Bnode%3D%22node03%22%7D");
  // A quote or backslash in a name stays inside the PromQL string.
  CHECK(UnhealthyTarget("a\"b\\", 1).find("node%3D%22a%5C%22b%5C%5C%22") != std::string::npos);
  CHECK(NodeHealthTarget("a\"b\\").find("node%3D%22a%5C%22b%5C%5C%22") != std::string::npos);

  Result<NodeHealth> health = ReadNodeHealth(Vector({{kNodeUp, "1"}, {kDcgm, "0"}, {kNoMount, "1"}}));
  REQUIRE(health.ok());
  CHECK(health->targets_up == std::set<std::string>{"node (10.213.78.12:9100)"});
  CHECK(health->targets_down == std::set<std::string>{"dcgm (10.213.78.12:9400)"});
  CHECK(health->alerts == std::set<std::string>{"MountMissing"});

  Result<std::vector<Unhealthy>> now = ReadUnhealthy(Vector({{kDcgm, "0"}, {kDcgmScraped, "1795733290"}, {kNodeDown, "1"}}));
  REQUIRE(now.ok());
  REQUIRE(now->size() == 3);
  CHECK((*now)[0].kind == Unhealthy::Kind::kTargetDown);
  CHECK((*now)[0].name == "dcgm (10.213.78.12:9400)");
  CHECK((*now)[1].kind == Unhealthy::Kind::kTargetNotScraped);
  CHECK((*now)[2].kind == Unhealthy::Kind::kAlert);
  CHECK((*now)[2].name == "NodeDown");
}

TEST_CASE("only what was healthy when the silence opened holds it") {
  const NodeHealth before{{"node (10.213.78.12:9100)", "dcgm (10.213.78.12:9400)"}, {"slurm (10.213.78.11:9341)"},
                          {"MountMissing"}};
  using K = Unhealthy::Kind;
  // An alert already active before (a missing mount) does not hold it; one the maintenance raised does.
  CHECK(StillHolding(before, {{K::kAlert, "MountMissing"}}).empty());
  CHECK(StillHolding(before, {{K::kAlert, "MountMissing"}, {K::kAlert, "NodeDown"}}) ==
        std::vector<std::string>{"alert NodeDown"});
  // A target up before holds it while down or not scraped since the node came back.
  CHECK(StillHolding(before, {{K::kTargetDown, "dcgm (10.213.78.12:9400)"},
                              {K::kTargetNotScraped, "node (10.213.78.12:9100)"}}) ==
        std::vector<std::string>{"dcgm (10.213.78.12:9400) down",
                                 "node (10.213.78.12:9100) not scraped since the node came back"});
  // A target down before, or never seen before (a first deploy adds it), does not.
  CHECK(StillHolding(before, {{K::kTargetDown, "slurm (10.213.78.11:9341)"},
                              {K::kTargetNotScraped, "pyxis (10.213.78.12:9500)"}}).empty());
  // Nothing of the node monitored before (Prometheus not asked, or no target up): nothing holds.
  CHECK(StillHolding(std::nullopt, {{K::kAlert, "NodeDown"}, {K::kTargetDown, "node (10.213.78.12:9100)"}}).empty());
  CHECK(StillHolding(NodeHealth{{}, {"node (10.213.78.12:9100)"}, {}}, {{K::kAlert, "NodeDown"}}).empty());
}

TEST_CASE("Prometheus's vector result is read as series; anything else is an error with a message") {
  Result<NodeHealth> none = ReadNodeHealth(R"({"status":"success","data":{"resultType":"vector","result":[]}})");
  REQUIRE(none.ok());
  CHECK(none->targets_up.empty());
  for (const char* broken :
       {"", "[]", "{}", R"({"status":"error","errorType":"bad_data","error":"parse error"})",
        R"({"status":"success","data":{"resultType":"matrix","result":[]}})",
        R"({"status":"success","data":{"resultType":"vector","result":{}}})", R"({"status":1,"data":{}})",
        R"({"status":"success","data":{"resultType":7,"result":[]}})", R"({"status":"success","data":[]})", "{\"status\"",
        R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{}}]}})",
        R"({"status":"success","data":{"resultType":"vector","result":[{"metric":[],"value":[1,"1"]}]}})",
        R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,1]}]}})"}) {
    CAPTURE(broken);
    Result<std::vector<Unhealthy>> read = ReadUnhealthy(broken);
    CHECK_FALSE(read.ok());
    CHECK(read.status().message().find("Prometheus's answer to the query") != std::string::npos);
    CHECK_FALSE(ReadNodeHealth(broken).ok());
  }
}

}  // namespace
}  // namespace clusterctl
