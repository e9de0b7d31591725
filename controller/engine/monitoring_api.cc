#include "controller/engine/monitoring_api.h"

#include <cctype>
#include <cstdio>
#include <ctime>
#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/json_fields.h"
#include "common/json_text.h"
#include "common/strings.h"

namespace clusterctl {
namespace {

constexpr size_t kMaxReply = 1 << 20;  // more is not an answer to our requests

nlohmann::json Matcher(const std::string& name, const std::string& value) {
  return {{"name", name}, {"value", value}, {"isRegex", false}, {"isEqual", true}};
}

Result<nlohmann::json> ParseReply(std::string_view reply, const char* what) {
  if (reply.size() > kMaxReply) return Status::Corruption(std::string(what) + ": the reply is over 1 MiB");
  nlohmann::json parsed = nlohmann::json::parse(reply, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return Status::Corruption(std::string(what) + ": the reply is not JSON");
  return parsed;
}

// Percent-encodes everything but unreserved characters (RFC 3986).
std::string QueryValue(const std::string& text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// A PromQL string's content: its quote and backslash escaped.
std::string PromQlString(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string Rfc3339(int64_t unix_ms) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[80];  // room for any int the fields could hold (-Wformat-truncation)
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(unix_ms % 1000));
  return text;
}

std::string SilenceBody(const SilenceRequest& request) {
  const nlohmann::json body = {
      {"matchers", {Matcher("cluster", request.cluster), Matcher("node", request.host)}},
      {"startsAt", Rfc3339(request.starts_ms)},
      {"endsAt", Rfc3339(request.ends_ms)},
      {"createdBy", "clusterctl"},
      {"comment", request.comment},
  };
  return JsonText(body);
}

Result<std::string> ReadSilenceId(std::string_view reply) {
  Result<nlohmann::json> parsed = ParseReply(reply, "Alertmanager's answer to the silence");
  if (!parsed.ok()) return parsed.status();
  const std::string id = TextAt(*parsed, "silenceID");
  if (id.empty()) return Status::Corruption("Alertmanager's answer to the silence has no silenceID");
  if (id.size() > 64 || !IsAlnumOr(id, "-")) {
    return Status::Corruption("Alertmanager's silenceID is not an id (letters, digits and -, at most 64)");
  }
  return id;
}

namespace {

std::string NodeMatcher(const std::string& host) { return "{node=\"" + PromQlString(host) + "\"}"; }

std::string QueryTarget(const std::string& query) { return "/api/v1/query?query=" + QueryValue(query); }

// The series of an instant query's vector result.
Result<std::vector<nlohmann::json>> ReadVector(std::string_view reply) {
  Result<nlohmann::json> parsed = ParseReply(reply, "Prometheus's answer to the query");
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json* data = MemberOf(*parsed, "data");
  const nlohmann::json* result = data != nullptr ? MemberOf(*data, "result") : nullptr;
  if (TextAt(*parsed, "status") != "success" || data == nullptr || TextAt(*data, "resultType") != "vector" ||
      result == nullptr || !result->is_array()) {
    return Status::Corruption("Prometheus's answer to the query is not a successful vector result");
  }
  std::vector<nlohmann::json> series;
  for (const nlohmann::json& one : *result) {
    const nlohmann::json* metric = MemberOf(one, "metric");
    const nlohmann::json* value = MemberOf(one, "value");
    if (metric == nullptr || !metric->is_object() || value == nullptr || !value->is_array() || value->size() != 2 ||
        !(*value)[1].is_string()) {
      return Status::Corruption("Prometheus's answer to the query has a series without metric or value");
    }
    series.push_back(one);
  }
  return series;
}

std::string TargetName(const nlohmann::json& metric) {
  return Printable(TextAt(metric, "job"), 80) + " (" + Printable(TextAt(metric, "instance"), 80) + ")";
}

}  // namespace

std::string NodeHealthTarget(const std::string& host) {
  return QueryTarget("up" + NodeMatcher(host) + " or ALERTS" + NodeMatcher(host));
}

Result<NodeHealth> ReadNodeHealth(std::string_view reply) {
  Result<std::vector<nlohmann::json>> series = ReadVector(reply);
  if (!series.ok()) return series.status();
  NodeHealth health;
  for (const nlohmann::json& one : *series) {
    const nlohmann::json& metric = one["metric"];
    if (!TextAt(metric, "alertname").empty()) {
      health.alerts.insert(Printable(TextAt(metric, "alertname"), 80));
    } else if (one["value"][1] == "1") {
      health.targets_up.insert(TargetName(metric));
    } else {
      health.targets_down.insert(TargetName(metric));
    }
  }
  return health;
}

std::string UnhealthyTarget(const std::string& host, int64_t since_s) {
  const std::string node = NodeMatcher(host);
  return QueryTarget("(timestamp(up" + node + ") < " + std::to_string(since_s) + ") or (up" + node +
                     " == 0) or ALERTS" + node);
}

Result<std::vector<Unhealthy>> ReadUnhealthy(std::string_view reply) {
  Result<std::vector<nlohmann::json>> series = ReadVector(reply);
  if (!series.ok()) return series.status();
  std::vector<Unhealthy> out;
  for (const nlohmann::json& one : *series) {
    const nlohmann::json& metric = one["metric"];
    if (!TextAt(metric, "alertname").empty()) {
      out.push_back({Unhealthy::Kind::kAlert, Printable(TextAt(metric, "alertname"), 80)});
    } else {  // up == 0 is 0; a scrape's timestamp is not
      const bool down = one["value"][1] == "0";
      out.push_back({down ? Unhealthy::Kind::kTargetDown : Unhealthy::Kind::kTargetNotScraped, TargetName(metric)});
    }
  }
  return out;
}

bool AnythingCanHold(const std::optional<NodeHealth>& before) { return before && !before->targets_up.empty(); }

std::vector<std::string> StillHolding(const std::optional<NodeHealth>& before, const std::vector<Unhealthy>& now) {
  std::set<std::string> holding;
  if (!AnythingCanHold(before)) return {};
  for (const Unhealthy& u : now) {
    switch (u.kind) {
      case Unhealthy::Kind::kAlert:
        if (!before->alerts.count(u.name)) holding.insert("alert " + u.name);
        break;
      case Unhealthy::Kind::kTargetDown:
        if (before->targets_up.count(u.name)) holding.insert(u.name + " down");
        break;
      case Unhealthy::Kind::kTargetNotScraped:
        if (before->targets_up.count(u.name)) holding.insert(u.name + " not scraped since the node came back");
        break;
    }
  }
  return {holding.begin(), holding.end()};
}

}  // namespace clusterctl
