// directory and symlink: presence, target, owner, group, mode.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "agent/resources/registry.h"
#include "agent/resources/node_files.h"
#include "agent/resources/safe_path.h"

namespace clusterctl::agent {

ResourceOutcome DirectoryResource(const ResourceRequest& request, ResourceHost&) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  const std::string path = p["path"].get<std::string>();
  FileInfo info = StatPath(path);
  if (p.value("state", std::string("present")) == "absent") {
    if (info.exists) {
      outcome.Differs("directory exists (to be removed if empty)");
      if (!request.apply) return outcome;
      auto parent = ParentDirectory::Open(path);
      if (!parent.ok()) return outcome.Fail(parent.status().message());
      if (::unlinkat(parent->fd(), parent->name().c_str(), AT_REMOVEDIR) != 0) {
        outcome.Fail("removing " + path + ": " + std::strerror(errno));
      }
    }
    return outcome;
  }
  if (info.exists && !info.is_directory) return outcome.Fail(path + " exists and is not a directory");
  if (!info.exists) {
    outcome.Differs("directory does not exist");
    std::optional<Attributes> attributes = DesiredAttributes(p, 0755, request.apply, outcome);
    if (!attributes) return outcome;
    if (request.apply) {
      if (Status made = MakeNodeDirectory(path, attributes->mode); !made.ok()) return outcome.Fail(made.message());
      Status set = ChangeAttributes(path, attributes->uid, attributes->gid, attributes->mode);
      if (!set.ok()) return outcome.Fail("setting owner/mode: " + set.message());
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
      if (!request.apply) return outcome;
      if (Status removed = RemoveNodeFile(path); !removed.ok()) outcome.Fail(removed.message());
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
    auto parent = ParentDirectory::Open(path);
    if (!parent.ok()) return outcome.Fail(parent.status().message());
    const std::string temp = parent->name() + ".clusterctl-link";
    ::unlinkat(parent->fd(), temp.c_str(), 0);
    if (::symlinkat(target.c_str(), parent->fd(), temp.c_str()) != 0 ||
        ::renameat(parent->fd(), temp.c_str(), parent->fd(), parent->name().c_str()) != 0) {
      ::unlinkat(parent->fd(), temp.c_str(), 0);
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
