// Reading a POST body: JSON objects only, checked before anything runs.
// A body that is not application/json is 415; malformed JSON, nesting
// deeper than kMaxDepth, a field the endpoint does not know, or a field of
// the wrong type is 400 naming the field. Never throws.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "controller/daemon/http_server.h"

namespace clusterctl {

struct BodyError {
  int status = 400;
  std::string message;
};

class RequestBody {
 public:
  static constexpr int kMaxDepth = 8;

  // An empty body is an empty object.
  static std::variant<RequestBody, BodyError> Parse(const HttpRequest& request, std::set<std::string> known_fields);

  // Each getter leaves `out` alone when the field is absent, and records the
  // first type error (error() then says which field and why).
  void String(const char* field, std::string& out);
  void StringList(const char* field, std::vector<std::string>& out);  // ["a","b"] or "a,b"
  void Bool(const char* field, bool& out);
  void Int(const char* field, int min, int max, int& out);
  const std::optional<BodyError>& error() const { return error_; }

 private:
  explicit RequestBody(nlohmann::json object) : object_(std::move(object)) {}
  const nlohmann::json* Find(const char* field) const;
  void Fail(const char* field, const std::string& why);

  nlohmann::json object_;
  std::optional<BodyError> error_;
};

}  // namespace clusterctl
