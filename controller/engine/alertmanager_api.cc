#include "controller/engine/alertmanager_api.h"

#include <cctype>
#include <cstdio>
#include <ctime>

#include <nlohmann/json.hpp>

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

}  // namespace

std::string Rfc3339(int64_t unix_ms) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
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
  const nlohmann::json& json = *parsed;
  if (!json.is_object() || !json.contains("silenceID") || !json["silenceID"].is_string()) {
    return Status::Corruption("Alertmanager's answer to the silence has no silenceID");
  }
  const std::string id = json["silenceID"].get<std::string>();
  if (id.size() > 64 || !IsAlnumOr(id, "-")) {
    return Status::Corruption("Alertmanager's silenceID is not an id (letters, digits and -, at most 64)");
  }
  return id;
}

std::string NodeAlertsTarget(const std::string& cluster, const std::string& host) {
  return "/api/v2/alerts?active=true&silenced=true&inhibited=true&unprocessed=true&filter=" +
         QueryValue("cluster=\"" + cluster + "\"") + "&filter=" + QueryValue("node=\"" + host + "\"");
}

Result<size_t> ReadFiringAlerts(std::string_view reply) {
  Result<nlohmann::json> parsed = ParseReply(reply, "Alertmanager's list of alerts");
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_array()) return Status::Corruption("Alertmanager's list of alerts is not a list");
  size_t firing = 0;
  for (const nlohmann::json& alert : *parsed) {
    if (!alert.is_object() || !alert.contains("status") || !alert["status"].is_object() ||
        !alert["status"].contains("state") || !alert["status"]["state"].is_string()) {
      return Status::Corruption("Alertmanager's list of alerts has an alert without status.state");
    }
    // "active", "suppressed" (silenced or inhibited) or "unprocessed": all
    // firing (the query asks for no resolved alert).
    ++firing;
  }
  return firing;
}

}  // namespace clusterctl
