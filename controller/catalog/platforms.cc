#include "controller/catalog/platforms.h"

#include <algorithm>
#include <set>
#include <utility>

#include "common/strings.h"
#include "common/yaml_doc.h"
#include "common/yaml_fields.h"
#include "controller/catalog/role.h"

namespace clusterctl {
namespace {

// os-release(5): ID and VERSION_ID are lower-case letters, digits, '.', '_' and '-'.
bool IsOsWord(const std::string& text) {
  if (text.empty() || text.size() > 64) return false;
  for (char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string FactText(const nlohmann::json& os, const char* key) {
  if (!os.is_object()) return "";
  auto it = os.find(key);
  return it != os.end() && it->is_string() ? it->get<std::string>() : "";
}

// `versions:` of a release: each known component's series, digits and dots.
bool ParseVersions(const YamlNode& node, const std::string& context, YamlFields& fields,
                   std::map<std::string, std::string>& out) {
  if (!fields.ExpectMap(node, context + " versions", /*null_ok=*/false)) return false;
  fields.CheckKnownKeys(node, {"slurm", "openmpi", "pmix", "munge"}, context + " versions");
  for (const auto& [component, value] : node.entries) {
    auto series = fields.String(value, context + " versions " + component);
    if (!series) return false;
    const bool ok = !series->empty() && series->find_first_not_of("0123456789.") == std::string::npos &&
                    series->front() != '.' && series->back() != '.';
    if (!ok) {
      fields.Error(value.location, context + " versions " + component + ": '" + *series +
                                       "' is not a release series (digits and dots: \"24.11\")");
      return false;
    }
    out[component] = *series;
  }
  return true;
}

// Where `key` of the map `node` is written (the map's own place if nowhere).
SourceLocation KeyLocation(const YamlNode& node, const std::string& key) {
  for (size_t i = 0; i < node.entries.size() && i < node.key_locations.size(); ++i) {
    if (node.entries[i].first == key) return node.key_locations[i];
  }
  return node.location;
}

// `vars:` of a release or an architecture: an object of role variables,
// each one's line kept for the catalog's checks.
bool ParseVars(const YamlNode& node, const std::string& context, YamlFields& fields, nlohmann::json& vars,
               std::map<std::string, SourceLocation>& where) {
  if (!fields.ExpectMap(node, context + " vars")) return false;
  if (!node.is_map()) return true;
  vars = YamlToJson(node);
  for (size_t i = 0; i < node.entries.size() && i < node.key_locations.size(); ++i) {
    where[node.entries[i].first] = node.key_locations[i];
  }
  return true;
}

// One release entry; nullopt (with diagnostics) when it is not one.
std::optional<Release> ParseRelease(const std::string& name, const YamlNode& node, YamlFields& fields) {
  const std::string context = "release '" + name + "'";
  if (!fields.ExpectMap(node, context, /*null_ok=*/false)) return std::nullopt;
  fields.CheckKnownKeys(node, {"id", "version_id", "codename", "support", "why", "apt_sources", "versions", "vars"}, context);
  Release release;
  release.name = name;
  release.where = node.location;
  const YamlNode* id = node.Find("id");
  const YamlNode* support = node.Find("support");
  const YamlNode* why = node.Find("why");
  if (!id || !support || !why) {
    fields.Error(node.location, context + " needs id, support and why");
    return std::nullopt;
  }
  const auto id_text = fields.String(*id, context + " id");
  const auto support_word = fields.Choice(*support, context + " support", {"supported", "planned", "refused"});
  const auto why_text = fields.String(*why, context + " why");
  if (!id_text || !support_word || !why_text) return std::nullopt;
  release.id = *id_text;
  release.why = *why_text;
  release.support = *support_word == "supported" ? ReleaseSupport::kSupported
                    : *support_word == "planned" ? ReleaseSupport::kPlanned
                                                 : ReleaseSupport::kRefused;
  for (auto [key, out] : {std::pair{"version_id", &release.version_id}, std::pair{"codename", &release.codename}}) {
    const YamlNode* value = node.Find(key);
    if (!value) continue;
    auto text = fields.String(*value, context + " " + key);
    if (!text) return std::nullopt;
    *out = *text;
  }
  if (const YamlNode* versions = node.Find("versions")) {
    if (!ParseVersions(*versions, context, fields, release.versions)) return std::nullopt;
  }
  if (const YamlNode* format = node.Find("apt_sources")) {
    auto word = fields.Choice(*format, context + " apt_sources", {"one-line", "deb822"});
    if (!word) return std::nullopt;
    release.apt_sources = *word;
  }
  for (const std::string* word : {&release.id, &release.version_id, &release.codename}) {
    if (!word->empty() && !IsOsWord(*word)) {
      fields.Error(node.location, context + ": '" + *word + "' is not an os-release word (lower-case letters, digits, '.', '_', '-')");
      return std::nullopt;
    }
  }
  if (const YamlNode* vars = node.Find("vars")) {
    if (!ParseVars(*vars, context, fields, release.vars, release.var_where)) return std::nullopt;
  }
  return release;
}

// Why `name` is not an architecture as `uname -m` prints it (the facts'
// kernel.arch); "" when it is one. Debian's own names (amd64, arm64), the
// likeliest slip, are answered with the kernel's.
std::string UnknownArchitecture(const std::string& name) {
  static const std::vector<std::string> kUname = {"x86_64", "aarch64", "ppc64le", "s390x", "riscv64",
                                                  "i686",   "armv7l",  "loongarch64", "mips64"};
  static const std::map<std::string, std::string> kDebian = {
      {"amd64", "x86_64"}, {"arm64", "aarch64"}, {"ppc64el", "ppc64le"}, {"i386", "i686"}, {"armhf", "armv7l"}};
  if (std::find(kUname.begin(), kUname.end(), name) != kUname.end()) return "";
  auto debian = kDebian.find(name);
  if (debian != kDebian.end()) {
    return "'" + name + "' is Debian's name; write the kernel's, as `uname -m` prints it: " + debian->second;
  }
  return "'" + name + "' is not an architecture `uname -m` prints (" + Join(kUname, ", ") + ")";
}

// One architecture entry (format 2), named as `uname -m` prints it.
std::optional<Architecture> ParseArchitecture(const std::string& name, const SourceLocation& key, const YamlNode& node,
                                              YamlFields& fields) {
  const std::string context = "architecture '" + name + "'";
  if (!fields.ExpectMap(node, context, /*null_ok=*/false)) return std::nullopt;
  fields.CheckKnownKeys(node, {"support", "why", "vars"}, context);
  const std::string unknown = UnknownArchitecture(name);
  if (!unknown.empty()) {
    fields.Error(key, context + ": " + unknown);
    return std::nullopt;
  }
  const YamlNode* support = node.Find("support");
  const YamlNode* why = node.Find("why");
  if (!support || !why) {
    fields.Error(node.location, context + " needs support and why");
    return std::nullopt;
  }
  const auto support_word = fields.Choice(*support, context + " support", {"supported", "planned"});
  const auto why_text = fields.String(*why, context + " why");
  if (!support_word || !why_text) return std::nullopt;
  Architecture architecture;
  architecture.name = name;
  architecture.where = key;
  architecture.why = *why_text;
  architecture.support = *support_word == "supported" ? ReleaseSupport::kSupported : ReleaseSupport::kPlanned;
  if (const YamlNode* vars = node.Find("vars")) {
    if (!ParseVars(*vars, context, fields, architecture.vars, architecture.var_where)) return std::nullopt;
  }
  return architecture;
}

// A variable is per release or per architecture, never both: which would win
// would hang on the layer order, and a value that differs by both is not
// either one's to set.
void CheckVariablesLayerOnce(const std::vector<Release>& releases, const Architecture& architecture,
                             Diagnostics& diagnostics) {
  for (const auto& [name, where] : architecture.var_where) {
    for (const Release& release : releases) {
      auto also = release.var_where.find(name);
      if (also == release.var_where.end()) continue;
      diagnostics.Error(where, "architecture '" + architecture.name + "' sets variable '" + name + "', which release '" +
                                   release.name + "' sets too (line " + std::to_string(also->second.line) +
                                   "): a variable is per release or per architecture, never both");
      break;
    }
  }
}

// Each variable of a release's or an architecture's `vars` is declared by a
// role and has a value its declaration accepts; errors at the variable's line.
void CheckLayerVariables(const Catalog& catalog, const std::string& context, const nlohmann::json& vars,
                         const std::map<std::string, SourceLocation>& var_where, const SourceLocation& entry,
                         const std::vector<std::string>& declared, Diagnostics& diagnostics) {
  for (const auto& [name, value] : vars.items()) {
    auto at = var_where.find(name);
    const SourceLocation& where = at == var_where.end() ? entry : at->second;
    const VariableSpec* spec = catalog.FindVariable(name);
    if (!spec) {
      diagnostics.Error(where, context + " sets variable '" + name + "', which no role declares" + DidYouMean(name, declared));
      continue;
    }
    for (const std::string& problem : CheckVariableValue(*spec, value, name, {})) {
      diagnostics.Error(where, context + ": " + problem);
    }
  }
}

std::vector<Release> ParseReleases(const YamlNode& releases, YamlFields& fields, Diagnostics& diagnostics) {
  std::vector<Release> found;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& [name, node] : releases.entries) {
    std::optional<Release> release = ParseRelease(name, node, fields);
    if (!release) continue;
    if (!seen.emplace(release->id, release->version_id).second) {
      diagnostics.Error(release->where, "release '" + name + "': a second entry for " + release->Title());
      continue;
    }
    found.push_back(std::move(*release));
  }
  return found;
}

std::vector<Architecture> ParseArchitectures(const YamlNode& architectures, const std::vector<Release>& releases,
                                             YamlFields& fields, Diagnostics& diagnostics) {
  std::vector<Architecture> found;
  if (!fields.ExpectMap(architectures, "architectures", /*null_ok=*/false)) return found;
  for (size_t i = 0; i < architectures.entries.size(); ++i) {
    const auto& [name, node] = architectures.entries[i];
    const SourceLocation key = i < architectures.key_locations.size() ? architectures.key_locations[i] : node.location;
    std::optional<Architecture> architecture = ParseArchitecture(name, key, node, fields);
    if (!architecture) continue;
    CheckVariablesLayerOnce(releases, *architecture, diagnostics);
    found.push_back(std::move(*architecture));
  }
  return found;
}

}  // namespace

const char* ReleaseSupportWord(ReleaseSupport support) {
  switch (support) {
    case ReleaseSupport::kSupported: return "supported";
    case ReleaseSupport::kPlanned: return "planned";
    case ReleaseSupport::kRefused: return "refused";
  }
  return "?";
}

std::string Release::Title() const {
  if (version_id.empty()) return id + " (every version)";
  return id + " " + version_id + (codename.empty() ? "" : " (" + codename + ")");
}

std::optional<Platforms> Platforms::Parse(std::string_view text, const std::string& path, Diagnostics& diagnostics) {
  const int errors_before = diagnostics.error_count();
  std::optional<YamlNode> root = ParseYaml(text, path, YamlLimits{}, diagnostics);
  if (!root) return std::nullopt;
  YamlFields fields(diagnostics);
  if (!fields.ExpectMap(*root, path, /*null_ok=*/false)) return std::nullopt;
  fields.CheckKnownKeys(*root, {"version", "releases", "architectures"}, path);
  long long version = kPlatformsFormatVersion;
  if (const YamlNode* node = root->Find("version")) {
    version = fields.Integer(*node, "version", 1, kPlatformsFormatVersion).value_or(kPlatformsFormatVersion);
  }
  const YamlNode* releases = root->Find("releases");
  if (!releases || !fields.ExpectMap(*releases, "releases", /*null_ok=*/false)) {
    if (!releases) diagnostics.Error(root->location, path + " has no releases");
    return std::nullopt;
  }
  Platforms platforms;
  platforms.releases_ = ParseReleases(*releases, fields, diagnostics);
  if (const YamlNode* architectures = root->Find("architectures")) {
    if (version < 2) {
      diagnostics.Error(KeyLocation(*root, "architectures"), "architectures: needs platforms.yaml format 2 (version: 2), this file says version " +
                                                     std::to_string(version));
    } else {
      platforms.architectures_ = ParseArchitectures(*architectures, platforms.releases_, fields, diagnostics);
    }
  }
  if (diagnostics.error_count() > errors_before) return std::nullopt;
  return platforms;
}

void Platforms::CheckVariables(const Catalog& catalog, Diagnostics& diagnostics) const {
  std::vector<std::string> declared;
  for (const auto& [name, spec] : catalog.variables()) declared.push_back(name);
  for (const Release& release : releases_) {
    CheckLayerVariables(catalog, "release '" + release.name + "'", release.vars, release.var_where, release.where,
                        declared, diagnostics);
  }
  for (const Architecture& architecture : architectures_) {
    CheckLayerVariables(catalog, "architecture '" + architecture.name + "'", architecture.vars, architecture.var_where,
                        architecture.where, declared, diagnostics);
  }
}

const Release* Platforms::Find(const nlohmann::json& os_facts) const {
  const std::string id = FactText(os_facts, "id");
  const std::string version = FactText(os_facts, "version_id");
  const Release* any_version = nullptr;
  for (const Release& release : releases_) {
    if (release.id != id) continue;
    if (release.version_id == version && !version.empty()) return &release;
    if (release.version_id.empty()) any_version = &release;
  }
  return any_version;
}

std::string Platforms::Refusal(const nlohmann::json& os_facts) const {
  if (releases_.empty()) return "";
  const Release* release = Find(os_facts);
  if (release && release->support != ReleaseSupport::kRefused) return "";
  const std::string id = FactText(os_facts, "id");
  const std::string version = FactText(os_facts, "version_id");
  const std::string shown = (id.empty() ? "an OS without an os-release ID" : id) + (version.empty() ? "" : " " + version);
  const std::string why = release ? shown + " is refused: " + release->why
                                  : shown + " is not a release clusterctl knows (platforms.yaml)";
  return why + "; clusterctl plans " + PlannedList() + " (docs/platforms.md)";
}

const Architecture* Platforms::FindArchitecture(const nlohmann::json& kernel_facts) const {
  const std::string arch = FactText(kernel_facts, "arch");
  for (const Architecture& architecture : architectures_) {
    if (architecture.name == arch) return &architecture;
  }
  return nullptr;
}

std::string Platforms::ArchitectureRefusal(const nlohmann::json& kernel_facts) const {
  const std::string arch = FactText(kernel_facts, "arch");
  if (architectures_.empty() || arch.empty() || FindArchitecture(kernel_facts)) return "";
  std::vector<std::string> known;
  for (const Architecture& architecture : architectures_) {
    known.push_back(architecture.name + (architecture.support == ReleaseSupport::kSupported ? " (supported)" : " (planned only)"));
  }
  return arch + " is not an architecture clusterctl knows (platforms.yaml); clusterctl plans " + Join(known, ", ") +
         " (docs/platforms.md)";
}

std::string Platforms::PlannedList() const {
  std::vector<std::string> listed;
  for (ReleaseSupport wanted : {ReleaseSupport::kSupported, ReleaseSupport::kPlanned}) {
    for (const Release& release : releases_) {
      if (release.support != wanted) continue;
      const std::string word = wanted == ReleaseSupport::kSupported ? "supported" : "planned only";
      listed.push_back(release.id + " " + release.version_id + " (" +
                       (release.codename.empty() ? "" : release.codename + ", ") + word + ")");
    }
  }
  return listed.empty() ? "no release" : Join(listed, ", ");
}

}  // namespace clusterctl
