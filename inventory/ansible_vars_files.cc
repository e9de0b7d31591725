#include "inventory/ansible_vars_files.h"

#include <algorithm>
#include <array>
#include <filesystem>

#include "common/strings.h"
#include "inventory/hostlist.h"

namespace clusterctl {
namespace {

namespace fs = std::filesystem;

// Ansible's order: NAME, then NAME with each extension; the first that exists is read.
constexpr std::array<std::string_view, 4> kSuffixes = {"", ".yml", ".yaml", ".json"};

bool HasVault(const YamlNode& node) {
  if (node.vault) return true;
  for (const YamlNode& item : node.items) {
    if (HasVault(item)) return true;
  }
  for (const auto& [key, value] : node.entries) {
    if (HasVault(value)) return true;
  }
  return false;
}

// The index in kSuffixes under which `entry` names one of `names`, or nullopt.
std::optional<size_t> SuffixIndex(const std::string& entry, const std::string& name) {
  for (size_t i = 0; i < kSuffixes.size(); ++i) {
    if (entry.size() == name.size() + kSuffixes[i].size() && entry.compare(0, name.size(), name) == 0 &&
        entry.compare(name.size(), std::string::npos, kSuffixes[i]) == 0) {
      return i;
    }
  }
  return std::nullopt;
}

// The group or host an entry of group_vars/ or host_vars/ is for, or "".
std::string EntityOf(const std::string& entry, const std::set<std::string>& names) {
  if (names.count(entry)) return entry;
  for (std::string_view suffix : kSuffixes) {
    if (!suffix.empty() && entry.size() > suffix.size() && EndsWith(entry, suffix)) {
      std::string stem = entry.substr(0, entry.size() - suffix.size());
      if (names.count(stem)) return stem;
    }
  }
  return "";
}

// Inside a directory Ansible reads files without an extension or with one of its own.
bool IsAnsibleExtension(const std::string& extension) {
  return std::find(kSuffixes.begin(), kSuffixes.end(), extension) != kSuffixes.end();
}

std::string WithoutExtension(const std::string& file) {
  for (std::string_view suffix : kSuffixes) {
    if (!suffix.empty() && file.size() > suffix.size() && EndsWith(file, suffix)) {
      return file.substr(0, file.size() - suffix.size());
    }
  }
  return file;
}

bool Skipped(const fs::path& path) {
  const std::string name = path.filename().string();
  return name.empty() || name[0] == '.' || name.back() == '~';
}

class VarsReader {
 public:
  VarsReader(const YamlLimits& limits, Diagnostics& diagnostics, std::vector<std::string>& notes)
      : limits_(limits), diagnostics_(diagnostics), notes_(notes) {
    limits_.ansible_tags = true;
  }

  // Reads base/kind (group_vars or host_vars) for `names` into `out`.
  bool ReadKind(const fs::path& base, const std::string& kind, const std::string& noun,
                const std::set<std::string>& names, std::map<std::string, std::vector<AnsibleVariable>>& out);

 private:
  bool ReadEntry(const fs::path& path, std::vector<AnsibleVariable>& out);
  bool ReadFile(const fs::path& path, std::vector<AnsibleVariable>& out);
  bool ReadMap(const YamlNode& root, const std::string& shown, std::vector<AnsibleVariable>& out);

  YamlLimits limits_;
  Diagnostics& diagnostics_;
  std::vector<std::string>& notes_;
  size_t bytes_ = 0;
};

// The entries of a directory, sorted; nullopt (reported) past the bound.
std::optional<std::vector<fs::path>> ListDirectory(const fs::path& dir, bool recursive, Diagnostics& diagnostics) {
  std::vector<fs::path> paths;
  std::error_code ec;
  auto add = [&](const fs::directory_entry& entry) { paths.push_back(entry.path()); };
  if (recursive) {
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (Skipped(it->path())) {
        it.disable_recursion_pending();
      } else if (it->is_regular_file(ec)) {
        add(*it);
      }
      if (paths.size() > kMaxPatternExpansion) break;
    }
  } else {
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (!Skipped(it->path())) add(*it);
      if (paths.size() > kMaxPatternExpansion) break;
    }
  }
  if (ec) {
    diagnostics.Error({dir.string(), 0, 0}, "cannot list the directory: " + ec.message());
    return std::nullopt;
  }
  if (paths.size() > kMaxPatternExpansion) {
    diagnostics.Error({dir.string(), 0, 0}, "more than " + std::to_string(kMaxPatternExpansion) + " entries");
    return std::nullopt;
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

bool VarsReader::ReadKind(const fs::path& base, const std::string& kind, const std::string& noun,
                          const std::set<std::string>& names,
                          std::map<std::string, std::vector<AnsibleVariable>>& out) {
  const fs::path dir = base / kind;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return true;
  std::optional<std::vector<fs::path>> entries = ListDirectory(dir, false, diagnostics_);
  if (!entries) return false;
  std::map<std::string, std::vector<fs::path>> by_name;  // each entity's entries, in Ansible's order
  for (const fs::path& entry : *entries) {
    const std::string file = entry.filename().string();
    const std::string name = EntityOf(file, names);
    if (name.empty()) {
      notes_.push_back(entry.string() + ": no " + noun + " '" + WithoutExtension(file) + "' in the inventory; not read");
    } else {
      by_name[name].push_back(entry);
    }
  }
  for (auto& [name, paths] : by_name) {
    std::sort(paths.begin(), paths.end(), [&name = name](const fs::path& a, const fs::path& b) {
      return SuffixIndex(a.filename().string(), name) < SuffixIndex(b.filename().string(), name);
    });
    for (size_t i = 1; i < paths.size(); ++i) {
      notes_.push_back(paths[i].string() + ": not read: Ansible reads only the first of " + name + ", " + name +
                       ".yml, " + name + ".yaml, " + name + ".json (here " + paths[0].filename().string() + ")");
    }
    if (!ReadEntry(paths[0], out[name])) return false;
  }
  return true;
}

bool VarsReader::ReadEntry(const fs::path& path, std::vector<AnsibleVariable>& out) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return ReadFile(path, out);
  std::optional<std::vector<fs::path>> files = ListDirectory(path, true, diagnostics_);
  if (!files) return false;
  for (const fs::path& file : *files) {
    if (!IsAnsibleExtension(file.extension().string())) continue;
    if (!ReadFile(file, out)) return false;
  }
  return true;
}

bool VarsReader::ReadFile(const fs::path& path, std::vector<AnsibleVariable>& out) {
  const std::string shown = path.string();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {  // a FIFO or device would block or never end
    diagnostics_.Error({shown, 0, 0}, "not a regular file; expected a YAML file of variables");
    return false;
  }
  const uintmax_t size = fs::file_size(path, ec);
  if (!ec && bytes_ + size > limits_.max_bytes) {
    diagnostics_.Error({shown, 0, 0}, "the group_vars and host_vars files together are larger than " +
                                          std::to_string(limits_.max_bytes) +
                                          " bytes (one inventory file's limit); refusing to read them");
    return false;
  }
  std::optional<std::string> text = ReadUserFile(shown, limits_, diagnostics_);
  if (!text) return false;
  bytes_ += text->size();
  if (text->rfind("$ANSIBLE_VAULT;", 0) == 0) {
    notes_.push_back(shown + ": encrypted with ansible-vault; not read (secrets are never written to an "
                     "inventory; set what clusterctl needs from it by hand)");
    return true;
  }
  std::optional<YamlNode> root = ParseYaml(*text, shown, limits_, diagnostics_);
  if (!root) return false;
  return ReadMap(*root, shown, out);
}

bool VarsReader::ReadMap(const YamlNode& root, const std::string& shown, std::vector<AnsibleVariable>& out) {
  if (root.is_null()) return true;
  if (!root.is_map()) {
    diagnostics_.Error(root.location, std::string("expected a map of variables (name: value), got ") +
                                          root.KindName());
    return false;
  }
  for (size_t i = 0; i < root.entries.size(); ++i) {
    const auto& [name, value] = root.entries[i];
    out.push_back({name, YamlToJson(value), shown + ":" + std::to_string(root.key_locations[i].line),
                   HasVault(value)});
  }
  return true;
}

}  // namespace

std::optional<AnsibleVarsFiles> ReadAnsibleVarsFiles(const std::string& dir, const std::set<std::string>& groups,
                                                     const std::set<std::string>& hosts, const YamlLimits& limits,
                                                     Diagnostics& diagnostics) {
  AnsibleVarsFiles files;
  VarsReader reader(limits, diagnostics, files.notes);
  std::set<std::string> with_all = groups;
  with_all.insert("all");
  if (!reader.ReadKind(dir, "group_vars", "group", with_all, files.groups)) return std::nullopt;
  if (!reader.ReadKind(dir, "host_vars", "host", hosts, files.hosts)) return std::nullopt;
  return files;
}

}  // namespace clusterctl
