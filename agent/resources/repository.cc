// repository: an apt source (+ its signing key) or a dnf .repo file. A
// changed apt source is read at once and alone (apt-get update with only its
// list): a node-local repository (file:, an unpacked MLNX_OFED bundle) needs
// no network, a site repository that cannot be read fails this step with
// apt's words, and the other sources keep their cache.
#include <sys/stat.h>
#include <unistd.h>

#include "agent/resources/apt.h"
#include "agent/resources/apt_source.h"
#include "agent/resources/registry.h"
#include "agent/resources/node_files.h"
#include "common/strings.h"

namespace clusterctl::agent {

namespace {

// The apt side: the key, the source in the format the step names (the
// other format's file removed, so a node never lists the source twice),
// and that source read alone when it changed.
ResourceOutcome AptRepository(const ResourceRequest& request, ResourceHost& host, const std::string& name,
                              bool absent) {
  ResourceOutcome outcome;
  const nlohmann::json& p = request.params;
  const std::optional<AptSourceFormat> format = ParseAptSourceFormat(p.value("format", std::string("one-line")));
  if (!format) return outcome.Fail("repository " + name + ": format must be one-line or deb822");
  const std::string& key = request.body;  // ASCII-armored key, may be empty
  const std::string key_path = "/etc/apt/keyrings/clusterctl-" + name + ".asc";
  AptSource source;
  source.uri = p["uri"].get<std::string>();
  source.suite = p.value("suite", std::string("./"));
  if (p.contains("components")) source.components = p["components"].get<std::vector<std::string>>();
  // A key from the controller, else a keyring the node already has (the
  // distribution's archive keyring, for its own extra components).
  source.keyring = !key.empty() ? key_path : p.value("keyring", std::string());
  source.trusted = p.value("trusted", false);
  const AptSourceFormat other = *format == AptSourceFormat::kDeb822 ? AptSourceFormat::kOneLine : AptSourceFormat::kDeb822;
  const std::string source_path = AptSourcePath(name, *format);
  if (request.apply && !absent) ::mkdir("/etc/apt/keyrings", 0755);
  EnsureFileContent(key_path, absent || key.empty() ? std::nullopt : std::optional<std::string>(key), 0644,
                    request.apply, outcome);
  EnsureFileContent(source_path, absent ? std::nullopt : std::optional<std::string>(AptSourceText(source, *format)),
                    0644, request.apply, outcome);
  EnsureFileContent(AptSourcePath(name, other), std::nullopt, 0644, request.apply, outcome);
  if (outcome.changed && request.apply && !absent && !outcome.failed) {
    // apt reads a sourcelist named *.sources as deb822 (sources.list(5)).
    RunApt(host, outcome,
           {"apt-get", "-o", "Dir::Etc::sourcelist=" + source_path, "-o", "Dir::Etc::sourceparts=-", "-o",
            "APT::Get::List-Cleanup=0", "-o", "Acquire::http::Timeout=60", "update", "-q"},
           std::chrono::minutes(5));
  }
  return outcome;
}

}  // namespace

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
  if (apt) return AptRepository(request, host, name, absent);
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
      P("state", T::kString, false, {"present", "absent"}), P("format", T::kString, false, {"one-line", "deb822"})},
     {}},
    RepositoryResource);

}  // namespace

}  // namespace clusterctl::agent
