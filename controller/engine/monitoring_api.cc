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

std::string MaintenanceHoldsTarget(const std::string& host, int64_t since_s, int64_t opened_ago_s) {
  const std::string node = "node=\"" + PromQlString(host) + "\"";
  const std::string query = "(timestamp(up{" + node + "}) < " + std::to_string(since_s) + ") or (up{" + node +
                            "} == 0) or (ALERTS{" + node + "} unless on(alertname) (ALERTS{" + node + "} offset " +
                            std::to_string(std::max<int64_t>(opened_ago_s, 1)) + "s))";
  return "/api/v1/query?query=" + QueryValue(query);
}

Result<size_t> ReadVectorSize(std::string_view reply) {
  Result<nlohmann::json> parsed = ParseReply(reply, "Prometheus's answer to the query");
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json* data = MemberOf(*parsed, "data");
  const nlohmann::json* result = data != nullptr ? MemberOf(*data, "result") : nullptr;
  if (TextAt(*parsed, "status") != "success" || data == nullptr || TextAt(*data, "resultType") != "vector" ||
      result == nullptr || !result->is_array()) {
    return Status::Corruption("Prometheus's answer to the query is not a successful vector result");
  }
  return result->size();
}

}  // namespace clusterctl
