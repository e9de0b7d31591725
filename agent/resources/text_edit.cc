// line and block: edits inside a file that other tools also own.
#include <regex>

#include "agent/resources/registry.h"
#include "agent/resources/node_files.h"
#include "agent/resources/schema.h"
#include "common/strings.h"

namespace clusterctl::agent {
namespace {

// Reads the file (or "" when it may be created); false when it is missing and may not be.
bool ReadEditable(const std::string& path, bool create, std::string& text, bool& exists, ResourceOutcome& outcome) {
  FileInfo info = StatPath(path);
  exists = info.exists;
  if (!info.exists) {
    if (!create) {
      outcome.Fail(path + " does not exist (set create: true to create it)");
      return false;
    }
    text.clear();
    return true;
  }
  if (!info.is_regular) {
    outcome.Fail(path + " is not a regular file");
    return false;
  }
  std::optional<std::string> read = ReadNodeFile(path);
  if (!read) {
    outcome.Fail("cannot read " + path);
    return false;
  }
  text = std::move(*read);
  return true;
}

// Writes the edited text back, keeping the file's owner and mode. A secret
// edit (the file holds secrets) shows no diff and leaves no backup: either
// would copy the whole file into the controller's output and state.
void WriteBack(const std::string& path, const std::string& before, const std::string& after, bool exists,
               const ResourceRequest& request, ResourceOutcome& outcome) {
  const bool secret = request.params.value("secret", false);
  if (secret) {
    for (std::string& difference : outcome.differences) difference += " (secret: not shown)";
  } else {
    outcome.diff = UnifiedDiff(before, after, path);
  }
  if (!request.apply) return;
  FileInfo info = StatPath(path);
  int mode = exists ? info.mode : (request.params.contains("mode") ? resources::ParseMode(request.params["mode"]) : 0644);
  if (exists && !secret) {
    outcome.has_backup = true;
    outcome.backup = before;
  }
  Status written = WriteNodeFile(path, after, mode, exists ? info.uid : 0, exists ? info.gid : 0);
  if (!written.ok()) outcome.Fail(written.message());
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines = Split(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

std::string Unlines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace

ResourceOutcome LineResource(const ResourceRequest& request, ResourceHost&) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  const std::string path = p["path"].get<std::string>();
  const std::string line = p["line"].get<std::string>();
  const bool absent = p.value("state", std::string("present")) == "absent";
  std::string text;
  bool exists = false;
  if (!ReadEditable(path, p.value("create", false) && !absent, text, exists, outcome)) {
    if (absent && !exists) outcome.failed = false;  // nothing to remove from a missing file
    return outcome;
  }
  std::vector<std::string> lines = Lines(text);
  std::optional<std::regex> pattern;
  if (p.contains("regexp")) {
    try {
      pattern = std::regex(p["regexp"].get<std::string>(), std::regex::extended);
    } catch (const std::regex_error& e) {
      return outcome.Fail("bad regexp '" + p["regexp"].get<std::string>() + "': " + e.what());
    }
  }
  auto matches = [&](const std::string& candidate) {
    return pattern ? std::regex_search(candidate, *pattern) : candidate == line;
  };
  std::vector<std::string> edited;
  bool found = false;
  for (const std::string& current : lines) {
    if (!matches(current) && current != line) {
      edited.push_back(current);
      continue;
    }
    if (absent) continue;  // drop every match
    if (!found) edited.push_back(line);  // replace the first match, drop later duplicates
    found = true;
  }
  if (!absent && !found) edited.push_back(line);
  if (edited == lines && exists) return outcome;
  if (absent && edited == lines) return outcome;
  outcome.Differs(absent ? "line present (to be removed)" : (found ? "line differs" : "line missing"));
  WriteBack(path, text, Unlines(edited), exists, request, outcome);
  return outcome;
}

ResourceOutcome BlockResource(const ResourceRequest& request, ResourceHost&) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  const std::string path = p["path"].get<std::string>();
  const bool absent = p.value("state", std::string("present")) == "absent";
  const std::string marker = p.value("marker", std::string("# {mark} CLUSTERCTL MANAGED BLOCK"));
  std::string begin = marker, end = marker;
  begin.replace(begin.find("{mark}") == std::string::npos ? 0 : begin.find("{mark}"),
                begin.find("{mark}") == std::string::npos ? 0 : 6, "BEGIN");
  end.replace(end.find("{mark}") == std::string::npos ? 0 : end.find("{mark}"),
              end.find("{mark}") == std::string::npos ? 0 : 6, "END");
  if (begin == end) return outcome.Fail("block marker must contain {mark}");
  std::string text;
  bool exists = false;
  if (!ReadEditable(path, p.value("create", false) && !absent, text, exists, outcome)) {
    if (absent && !exists) outcome.failed = false;
    return outcome;
  }
  std::vector<std::string> lines = Lines(text);
  std::vector<std::string> block_lines;
  if (!absent) {
    block_lines.push_back(begin);
    for (const std::string& l : Lines(p.value("block", std::string()))) block_lines.push_back(l);
    block_lines.push_back(end);
  }
  std::vector<std::string> edited;
  bool replaced = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == begin) {
      size_t j = i;
      while (j < lines.size() && lines[j] != end) ++j;
      if (j == lines.size()) return outcome.Fail(path + ": block start marker without end marker");
      if (!replaced) edited.insert(edited.end(), block_lines.begin(), block_lines.end());
      replaced = true;
      i = j;
      continue;
    }
    edited.push_back(lines[i]);
  }
  if (!replaced) edited.insert(edited.end(), block_lines.begin(), block_lines.end());
  if (edited == lines && (exists || absent)) return outcome;
  outcome.Differs(absent ? "block present (to be removed)" : (replaced ? "block differs" : "block missing"));
  WriteBack(path, text, Unlines(edited), exists, request, outcome);
  return outcome;
}

// The kinds this file implements, registered with its parameters.
namespace {
using resources::P;
using T = resources::ParamType;

const ResourceKindRegistration kLineKind(
    {"line", "one line in a file (optionally replacing the line a regexp matches)",
     {P("path", T::kString, true), P("line", T::kString, true), P("regexp", T::kString),
      P("state", T::kString, false, {"present", "absent"}), P("create", T::kBool), P("mode", T::kMode),
      P("secret", T::kBool)},
     {}},
    LineResource);

const ResourceKindRegistration kBlockKind(
    {"block", "a block of lines between markers in a file",
     {P("path", T::kString, true), P("block", T::kString), P("marker", T::kString),
      P("state", T::kString, false, {"present", "absent"}), P("create", T::kBool), P("mode", T::kMode),
      P("secret", T::kBool)},
     {}},
    BlockResource);

}  // namespace

}  // namespace clusterctl::agent
