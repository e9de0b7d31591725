// mount: the /etc/fstab entry for a mount point and the mount itself.
#include <sys/stat.h>

#include <algorithm>
#include <sstream>

#include "agent/resources/registry.h"
#include "agent/resources/node_files.h"
#include "common/strings.h"

namespace clusterctl::agent {
namespace {

bool IsMounted(const std::string& path) {
  std::optional<std::string> info = ReadWholeFile("/proc/self/mountinfo");
  if (!info) return false;
  for (const std::string& line : Split(*info, '\n')) {
    std::istringstream fields(line);
    std::string id, parent, device, root, mount_point;
    fields >> id >> parent >> device >> root >> mount_point;
    if (mount_point == path) return true;
  }
  return false;
}

}  // namespace

ResourceOutcome MountResource(const ResourceRequest& request, ResourceHost& host) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  const std::string path = p["path"].get<std::string>();
  const std::string state = p.value("state", std::string("mounted"));
  if (path.empty() || path[0] != '/' || path.find_first_of(" \t\n") != std::string::npos) {
    return outcome.Fail("mount path must be an absolute path without spaces");
  }
  const bool wants_entry = state == "mounted" || state == "present";
  if (wants_entry && (!p.contains("source") || !p.contains("fstype"))) {
    return outcome.Fail("mount needs 'source' and 'fstype' for state " + state);
  }
  // Each is one field of the fstab line: a space or line break would add
  // fields or entries of the value's choosing to /etc/fstab.
  for (const char* field : {"source", "fstype", "options"}) {
    const std::string value = p.value(field, std::string("x"));
    const bool one_word = !value.empty() && std::none_of(value.begin(), value.end(), [](char c) {
      return static_cast<unsigned char>(c) <= ' ' || c == 0x7f;
    });
    if (!one_word) return outcome.Fail("mount " + std::string(field) + " '" + Printable(value) + "' is not one word of an fstab line");
  }
  // fstab: replace the entry for `path`, keep everything else byte for byte.
  std::string fstab = ReadWholeFile("/etc/fstab").value_or("");
  std::vector<std::string> lines = Split(fstab, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  std::string entry;
  if (wants_entry) {
    entry = p["source"].get<std::string>() + " " + path + " " + p["fstype"].get<std::string>() + " " +
            p.value("options", std::string("defaults")) + " 0 0";
  }
  std::vector<std::string> edited;
  bool placed = false;
  for (const std::string& line : lines) {
    std::istringstream fields(line);
    std::string source, mount_point;
    fields >> source >> mount_point;
    if (!source.empty() && source[0] != '#' && mount_point == path) {
      if (wants_entry && !placed) edited.push_back(entry);
      placed = true;
      continue;
    }
    edited.push_back(line);
  }
  if (wants_entry && !placed) edited.push_back(entry);
  std::string new_fstab;
  for (const std::string& line : edited) new_fstab += line + "\n";
  if (new_fstab != fstab && !(fstab.empty() && edited.empty())) {
    outcome.Differs(wants_entry ? "fstab entry for " + path + " differs or is missing" : "fstab entry for " + path + " present");
    outcome.diff = UnifiedDiff(fstab, new_fstab, "/etc/fstab");
    if (request.apply) {
      FileInfo info = StatPath("/etc/fstab");
      Status written = WriteNodeFile("/etc/fstab", new_fstab, info.exists ? info.mode : 0644, 0, 0);
      if (!written.ok()) return outcome.Fail(written.message());
    }
  }
  const bool mounted = IsMounted(path);
  if (state == "mounted" && !mounted) {
    outcome.Differs(path + " not mounted");
    if (request.apply) {
      (void)MakeNodeDirectory(path, 0755);  // a failure shows in mount's own error
      RunOrFail(host, outcome, {"mount", path}, true);
    }
  } else if ((state == "unmounted" || state == "absent") && mounted) {
    outcome.Differs(path + " mounted");
    if (request.apply) RunOrFail(host, outcome, {"umount", path}, true);
  }
  return outcome;
}

// The kind this file implements, registered with its parameters.
namespace {
using resources::P;
using T = resources::ParamType;

const ResourceKindRegistration kMountKind(
    {"mount", "an /etc/fstab entry and the mount itself",
     {P("path", T::kString, true), P("source", T::kString), P("fstype", T::kString), P("options", T::kString),
      P("state", T::kString, false, {"mounted", "present", "unmounted", "absent"})},
     {}},
    MountResource);

}  // namespace

}  // namespace clusterctl::agent
