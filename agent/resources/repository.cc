// repository: an apt source (+ its signing key) or a dnf .repo file. A
// changed apt source is read at once and alone (apt-get update with only its
// list): a node-local repository (file:, an unpacked MLNX_OFED bundle) needs
// no network, a site repository that cannot be read fails this step with
// apt's words, and the other sources keep their cache.
#include <sys/stat.h>
#include <unistd.h>

#include "agent/resources/apt.h"
#include "agent/resources/registry.h"
#include "agent/resources/node_files.h"
#include "common/strings.h"

namespace clusterctl::agent {

ResourceOutcome RepositoryResource(const ResourceRequest& request, ResourceHost& host) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  const std::string name = p["name"].get<std::string>();
  // A file name, and a line of a .repo file: nothing else.
  if (!IsAlnumOr(name, "_.+-") || name[0] == '.' || name[0] == '-') {
    return outcome.Fail("repository name '" + Printable(name) +
                        "' must be a plain file name (letters, digits, '_', '.', '+', '-'; not first '.' or '-')");
  }
  const bool absent = p.value("state", std::string("present")) == "absent";
  // Each value is one word of the source line: a space or line break would
  // add options or lines of the admin's choosing to apt's sources.
  std::vector<std::string> words = {p["uri"].get<std::string>(), p.value("suite", std::string("./")),
                                    p.value("keyring", std::string())};
  if (p.contains("components")) {
    for (const auto& c : p["components"]) words.push_back(c.get<std::string>());
  }
  for (const std::string& word : words) {
    for (char c : word) {
      if (static_cast<unsigned char>(c) <= ' ' || c == '[' || c == ']' || c == 0x7f) {
        return outcome.Fail("repository " + name + ": '" + Printable(word) + "' is not a single word (uri, suite, components, keyring)");
      }
    }
  }
  const bool apt = StatPath("/var/lib/dpkg/status").exists;
  const std::string& key = request.body;  // ASCII-armored key, may be empty
  if (apt) {
    const std::string key_path = "/etc/apt/keyrings/clusterctl-" + name + ".asc";
    const std::string list_path = "/etc/apt/sources.list.d/clusterctl-" + name + ".list";
    std::string components;
    if (p.contains("components")) {
      for (const auto& c : p["components"]) components += " " + c.get<std::string>();
    } else {
      components = " main";
    }
    // A key from the controller, else a keyring the node already has (the
    // distribution's archive keyring, for its own extra components).
    const std::string keyring = !key.empty() ? key_path : p.value("keyring", std::string());
    std::string options = !keyring.empty()                ? "[signed-by=" + keyring + "] "
                          : p.value("trusted", false) ? "[trusted=yes] "
                                                      : "";
    std::string line = "deb " + options +
                       p["uri"].get<std::string>() + " " + p.value("suite", std::string("./")) +
                       (p.value("suite", std::string("./")).back() == '/' ? "" : components) + "\n";
    if (request.apply && !absent) ::mkdir("/etc/apt/keyrings", 0755);
    EnsureFileContent(key_path, absent || key.empty() ? std::nullopt : std::optional<std::string>(key), 0644,
                      request.apply, outcome);
    EnsureFileContent(list_path, absent ? std::nullopt : std::optional<std::string>(line), 0644, request.apply,
                      outcome);
    if (outcome.changed && request.apply && !absent && !outcome.failed) {
      RunApt(host, outcome,
             {"apt-get", "-o", "Dir::Etc::sourcelist=" + list_path, "-o", "Dir::Etc::sourceparts=-", "-o",
              "APT::Get::List-Cleanup=0", "-o", "Acquire::http::Timeout=60", "update", "-q"},
             std::chrono::minutes(5));
    }
    return outcome;
  }
  const std::string key_path = "/etc/pki/rpm-gpg/RPM-GPG-KEY-clusterctl-" + name;
  std::string repo = "[clusterctl-" + name + "]\nname=" + name + "\nbaseurl=" + p["uri"].get<std::string>() +
                     "\nenabled=1\ngpgcheck=" + (key.empty() ? "0" : "1") + "\n" +
                     (key.empty() ? "" : "gpgkey=file://" + key_path + "\n");
  if (request.apply && !absent) ::mkdir("/etc/pki/rpm-gpg", 0755);
  EnsureFileContent(key_path, absent || key.empty() ? std::nullopt : std::optional<std::string>(key), 0644,
                    request.apply, outcome);
  EnsureFileContent("/etc/yum.repos.d/clusterctl-" + name + ".repo",
                    absent ? std::nullopt : std::optional<std::string>(repo), 0644, request.apply, outcome);
  return outcome;
}

// The kind this file implements, registered with its parameters.
namespace {
using resources::ControllerSide;
using resources::InventoryFile;
using resources::P;
using T = resources::ParamType;

const ResourceKindRegistration kRepositoryKind(
    {"repository", "a package repository (apt source + key, or dnf .repo)",
     {P("name", T::kString, true), P("uri", T::kString, true), P("suite", T::kString),
      P("components", T::kStringList), ControllerSide("key", T::kString), InventoryFile("key_file"),
      P("trusted", T::kBool), P("keyring", T::kString),
      P("state", T::kString, false, {"present", "absent"})},
     {}},
    RepositoryResource);

}  // namespace

}  // namespace clusterctl::agent
