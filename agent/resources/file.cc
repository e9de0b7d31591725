// file: content (from the request body), owner, group, mode; atomic replace;
// the previous content comes back as a backup (never for secret files).
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/resources/registry.h"
#include "agent/resources/node_files.h"
#include "common/strings.h"

namespace clusterctl::agent {
namespace {

std::string LineCountChange(const std::string& before, const std::string& after) {
  size_t a = std::count(before.begin(), before.end(), '\n');
  size_t b = std::count(after.begin(), after.end(), '\n');
  return "content differs (" + std::to_string(a) + " -> " + std::to_string(b) + " lines)";
}

}  // namespace

ResourceOutcome FileResource(const ResourceRequest& request, ResourceHost& host) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  const std::string path = p["path"].get<std::string>();
  const bool secret = p.value("secret", false);
  FileInfo info = StatPath(path);

  if (p.value("state", std::string("present")) == "absent") {
    if (info.exists) {
      outcome.Differs("file exists (to be removed)");
      if (!request.apply) return outcome;
      if (Status removed = RemoveNodeFile(path); !removed.ok()) outcome.Fail(removed.message());
    }
    return outcome;
  }
  if (info.exists && !info.is_regular) return outcome.Fail(path + " exists and is not a regular file");

  std::optional<std::string> current = info.exists ? ReadNodeFile(path) : std::nullopt;
  const std::string& wanted = request.body;
  if (!info.exists) {
    outcome.Differs("file does not exist");
  } else if (!current || *current != wanted) {
    outcome.Differs(secret ? "content differs (secret: not shown)" : LineCountChange(current.value_or(""), wanted));
  }
  if (!secret && (!info.exists || current != wanted)) outcome.diff = UnifiedDiff(current.value_or(""), wanted, path);

  if (outcome.changed) {
    std::optional<Attributes> attributes = DesiredAttributes(p, info.exists ? info.mode : 0644, request.apply, outcome);
    if (!attributes) return outcome;
    if (info.exists && !p.contains("owner")) attributes->uid = info.uid;
    if (info.exists && !p.contains("group")) attributes->gid = info.gid;
    if (request.apply) {
      if (p.contains("validate")) {
        // Validate a copy first (e.g. visudo -cf %s): a bad file never replaces a good one.
        const std::string candidate = path + ".clusterctl-validate";
        Status written = WriteNodeFile(candidate, wanted, 0600, 0, 0);
        if (!written.ok()) return outcome.Fail(written.message());
        std::vector<std::string> argv;
        for (const auto& word : p["validate"]) {
          std::string w = word.get<std::string>();
          size_t at = w.find("%s");
          if (at != std::string::npos) w.replace(at, 2, candidate);
          argv.push_back(w);
        }
        bool valid = RunOrFail(host, outcome, argv, false);
        RemoveNodeFile(candidate);
        if (!valid) {
          outcome.error = "validation of the new " + path + " failed: " + outcome.error;
          return outcome;
        }
      }
      if (current && !secret) {
        outcome.has_backup = true;
        outcome.backup = *current;
      }
      Status written = WriteNodeFile(path, wanted, attributes->mode, attributes->uid, attributes->gid);
      if (!written.ok()) return outcome.Fail(written.message());
      return outcome;
    }
  }
  EnsureAttributes(path, p, request.apply, outcome);
  return outcome;
}

// The kind this file implements, registered with its parameters.
namespace {
using resources::ControllerSide;
using resources::InventoryFile;
using resources::P;
using resources::Used;
using T = resources::ParamType;
using U = resources::ParamUse;

const ResourceKindRegistration kFileKind(
    {"file", "a file's content, owner, group and mode (atomic replace; old content kept in the state)",
     {P("path", T::kString, true), Used(ControllerSide("content", T::kString), U::kPathContent),
      Used(ControllerSide("template", T::kString), U::kTemplateName), InventoryFile("source"),
      Used(ControllerSide("secret_content", T::kString), U::kSecretName), P("owner", T::kString),
      P("group", T::kString), P("mode", T::kMode), P("state", T::kString, false, {"present", "absent"}),
      P("secret", T::kBool), P("validate", T::kStringList)},
     {"content", "template", "source", "secret_content"}},
    FileResource);

}  // namespace

}  // namespace clusterctl::agent
