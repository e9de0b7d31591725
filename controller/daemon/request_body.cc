#include "controller/daemon/request_body.h"

#include "common/strings.h"

namespace clusterctl {

std::variant<RequestBody, BodyError> RequestBody::Parse(const HttpRequest& request, std::set<std::string> known_fields) {
  if (Trim(request.body).empty()) return RequestBody(nlohmann::json::object());
  const std::string type = AsciiLower(Trim(Split(request.content_type, ';').front()));
  if (type != "application/json") return BodyError{415, "the body must be application/json"};
  bool too_deep = false;
  nlohmann::json::parser_callback_t depth_guard = [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth >= kMaxDepth) too_deep = true;  // depth counts from 0
    return !too_deep;
  };
  nlohmann::json parsed = nlohmann::json::parse(request.body, depth_guard, /*allow_exceptions=*/false);
  if (too_deep) return BodyError{400, "the body nests deeper than " + std::to_string(kMaxDepth) + " levels"};
  if (parsed.is_discarded()) return BodyError{400, "the body is not valid JSON"};
  if (!parsed.is_object()) return BodyError{400, "the body must be a JSON object"};
  for (const auto& [field, value] : parsed.items()) {
    if (!known_fields.count(field)) {
      return BodyError{400, "unknown field '" + Printable(field, 64) + "'; this endpoint takes: " +
                                Join(std::vector<std::string>(known_fields.begin(), known_fields.end()), ", ")};
    }
  }
  return RequestBody(std::move(parsed));
}

const nlohmann::json* RequestBody::Find(const char* field) const {
  auto it = object_.find(field);
  return it == object_.end() || it->is_null() ? nullptr : &*it;
}

void RequestBody::Fail(const char* field, const std::string& why) {
  if (!error_) error_ = BodyError{400, std::string("field '") + field + "': " + why};
}

void RequestBody::String(const char* field, std::string& out) {
  const nlohmann::json* value = Find(field);
  if (!value) return;
  if (!value->is_string()) return Fail(field, "must be a string");
  out = value->get<std::string>();
}

void RequestBody::StringList(const char* field, std::vector<std::string>& out) {
  const nlohmann::json* value = Find(field);
  if (!value) return;
  out.clear();
  if (value->is_string()) {
    for (const std::string& item : Split(value->get<std::string>(), ',')) {
      if (!Trim(item).empty()) out.emplace_back(Trim(item));
    }
    return;
  }
  if (!value->is_array()) return Fail(field, "must be a list of strings (or one comma-separated string)");
  for (const nlohmann::json& item : *value) {
    if (!item.is_string()) return Fail(field, "must be a list of strings");
    out.push_back(item.get<std::string>());
  }
}

void RequestBody::Bool(const char* field, bool& out) {
  const nlohmann::json* value = Find(field);
  if (!value) return;
  if (!value->is_boolean()) return Fail(field, "must be true or false");
  out = value->get<bool>();
}

void RequestBody::Int(const char* field, int min, int max, int& out) {
  const nlohmann::json* value = Find(field);
  if (!value) return;
  if (!value->is_number_integer()) return Fail(field, "must be a whole number");
  const int64_t n = value->get<int64_t>();
  if (n < min || n > max) return Fail(field, "must be from " + std::to_string(min) + " to " + std::to_string(max));
  out = static_cast<int>(n);
}

}  // namespace clusterctl
