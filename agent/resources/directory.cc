// directory and symlink: presence, target, owner, group, mode.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "agent/resources/registry.h"
#include "agent/resources/node_files.h"

namespace clusterctl::agent {

ResourceOutcome DirectoryResource(const ResourceRequest& request, ResourceHost&) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  const std::string path = p["path"].get<std::string>();
  FileInfo info = StatPath(path);
  if (p.value("state", std::string("present")) == "absent") {
    if (info.exists) {
      outcome.Differs("directory exists (to be removed if empty)");
      if (request.apply && ::rmdir(path.c_str()) != 0) outcome.Fail("removing " + path + ": " + std::strerror(errno));
    }
    return outcome;
  }
  if (info.exists && !info.is_directory) return outcome.Fail(path + " exists and is not a directory");
  if (!info.exists) {
    outcome.Differs("directory does not exist");
    std::optional<Attributes> attributes = DesiredAttributes(p, 0755, request.apply, outcome);
    if (!attributes) return outcome;
    if (request.apply) {
      if (::mkdir(path.c_str(), static_cast<mode_t>(attributes->mode)) != 0) {
        return outcome.Fail("mkdir " + path + ": " + std::strerror(errno));
      }
      if (::chown(path.c_str(), attributes->uid, attributes->gid) != 0 ||
          ::chmod(path.c_str(), static_cast<mode_t>(attributes->mode)) != 0) {
        return outcome.Fail("setting owner/mode of " + path + ": " + std::strerror(errno));
      }
    }
    return outcome;
  }
  EnsureAttributes(path, p, request.apply, outcome);
  return outcome;
}

ResourceOutcome SymlinkResource(const ResourceRequest& request, ResourceHost&) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  const std::string path = p["path"].get<std::string>();
  FileInfo info = StatPath(path);
  if (p.value("state", std::string("present")) == "absent") {
    if (info.exists) {
      if (!info.is_symlink) return outcome.Fail(path + " is not a symbolic link; not removing it");
      outcome.Differs("symlink exists (to be removed)");
      if (request.apply && ::unlink(path.c_str()) != 0) outcome.Fail("removing " + path + ": " + std::strerror(errno));
    }
    return outcome;
  }
  if (!p.contains("target")) return outcome.Fail("symlink needs 'target' unless state is absent");
  const std::string target = p["target"].get<std::string>();
  if (info.exists && !info.is_symlink) return outcome.Fail(path + " exists and is not a symbolic link");
  if (info.exists) {
    char buffer[PATH_MAX];
    ssize_t n = ::readlink(path.c_str(), buffer, sizeof buffer - 1);
    std::string current = n >= 0 ? std::string(buffer, static_cast<size_t>(n)) : "";
    if (current == target) return outcome;
    outcome.Differs("points to " + current + " -> " + target);
  } else {
    outcome.Differs("symlink does not exist");
  }
  if (request.apply) {
    const std::string temp = path + ".clusterctl-link";
    ::unlink(temp.c_str());
    if (::symlink(target.c_str(), temp.c_str()) != 0 || ::rename(temp.c_str(), path.c_str()) != 0) {
      ::unlink(temp.c_str());
      outcome.Fail("creating symlink " + path + ": " + std::strerror(errno));
    }
  }
  return outcome;
}

// The kinds this file implements, registered with its parameters.
namespace {
using resources::P;
using T = resources::ParamType;

const ResourceKindRegistration kDirectoryKind(
    {"directory", "a directory with owner, group and mode",
     {P("path", T::kString, true), P("owner", T::kString), P("group", T::kString), P("mode", T::kMode),
      P("state", T::kString, false, {"present", "absent"})},
     {}},
    DirectoryResource);

const ResourceKindRegistration kSymlinkKind(
    {"symlink", "a symbolic link",
     {P("path", T::kString, true), P("target", T::kString), P("state", T::kString, false, {"present", "absent"})},
     {}},
    SymlinkResource);

}  // namespace

}  // namespace clusterctl::agent
