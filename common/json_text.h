// JSON text for output and for the state store.
//
// Node output is bytes, not text: a command's output or a tool's evidence
// may hold bytes that are not UTF-8, and nlohmann::json::dump throws on
// them (an uncaught throw aborts the controller mid-run). JsonText writes
// each invalid byte as U+FFFD instead; valid text is unchanged, so hashes
// of valid input are the same as with dump().
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace clusterctl {

inline std::string JsonText(const nlohmann::json& value, int indent = -1) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace clusterctl
