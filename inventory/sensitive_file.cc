#include "inventory/sensitive_file.h"

#include <filesystem>
#include <fstream>
#include <system_error>

namespace clusterctl {
namespace {

namespace fs = std::filesystem;

constexpr size_t kHeadBytes = 64 * 1024;

std::string Canonical(const std::string& path) {
  std::error_code error;
  const fs::path resolved = fs::weakly_canonical(path, error);
  return error ? path : resolved.string();
}

// The state directory `resolved` lies under, between `base_dir` and it; "" when none.
std::string StateDirectoryAbove(const fs::path& resolved, const fs::path& base) {
  std::error_code error;
  for (fs::path dir = resolved.parent_path(); dir.has_relative_path() && dir != base; dir = dir.parent_path()) {
    if (dir.filename() == ".clusterctl" || fs::exists(dir / "state.db", error)) return dir.string();
  }
  return "";
}

std::string Head(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(kHeadBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return head;
}

}  // namespace

std::set<std::string> ConnectionKeysOf(const Inventory& inventory) {
  std::set<std::string> keys;
  for (const Host& host : inventory.hosts) {
    if (!host.connection.key_file.empty()) keys.insert(Canonical(host.connection.key_file));
  }
  for (const Group& group : inventory.groups) {
    if (group.connection.key_file && !group.connection.key_file->empty()) {
      const fs::path key(*group.connection.key_file);
      keys.insert(Canonical(key.is_absolute() ? key.string() : (fs::path(inventory.base_dir) / key).string()));
    }
  }
  return keys;
}

bool LooksLikePrivateKey(std::string_view head) {
  static constexpr std::string_view kBegin = "-----BEGIN ";
  for (size_t at = head.find(kBegin); at != std::string_view::npos; at = head.find(kBegin, at + 1)) {
    const size_t label = at + kBegin.size();
    const size_t end = head.find("-----", label);
    if (end == std::string_view::npos) return false;
    const std::string_view name = head.substr(label, end - label);  // "OPENSSH PRIVATE KEY", "PGP PRIVATE KEY BLOCK"
    if (name.size() <= 40 && name.find('\n') == std::string_view::npos && name.find("PRIVATE KEY") != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

std::string SensitiveFileRefusal(const std::string& resolved, const std::string& base_dir,
                                 const std::set<std::string>& connection_keys, bool takes_private_key) {
  if (connection_keys.count(resolved)) {
    return "it is the cluster's SSH connection key (connection.key_file), which never leaves the controller";
  }
  const std::string state = StateDirectoryAbove(resolved, Canonical(base_dir));
  if (!state.empty()) {
    return "it lies in clusterctl's state directory " + state + " (its secrets and database never leave the controller)";
  }
  if (!takes_private_key && LooksLikePrivateKey(Head(resolved))) {
    return "it holds a private key (a \"PRIVATE KEY\" header), and this variable is not declared to take one: it "
           "would land readable on the node";
  }
  return "";
}

}  // namespace clusterctl
