// Parses a `connection:` map at cluster, group or host level.
#include <sys/stat.h>

#include <cstdlib>

#include "inventory/connection.h"
#include "inventory/loader_internal.h"

namespace clusterctl::inventory_internal {
namespace {

const std::vector<std::string> kConnectionKeys = {"user", "port", "key_file", "become",
                                                  "jump_host", "host_key_policy", "connect_timeout"};

}  // namespace

std::string ResolveUserPath(const std::string& path, const std::string& base_dir, const std::string& home) {
  if (path == "~" || path.rfind("~/", 0) == 0) return home + path.substr(1);
  if (!path.empty() && path[0] == '/') return path;
  return base_dir + "/" + path;
}

std::optional<ConnectionOverrides> ParseConnection(const YamlNode& node, const std::string& context,
                                                   const std::string& base_dir,
                                                   const InventoryLoadOptions& options, YamlFields& fields) {
  ConnectionOverrides out;
  if (!fields.ExpectMap(node, "'connection' of " + context)) return std::nullopt;
  fields.CheckKnownKeys(node, kConnectionKeys, "'connection' of " + context);
  const int errors_before = fields.diagnostics().error_count();

  if (const YamlNode* n = node.Find("user")) {
    if (auto user = fields.String(*n, "connection user")) {
      if (IsUserName(*user)) {
        out.user = *user;
      } else {
        fields.Error(n->location, "connection user '" + *user + "' is not a valid user name");
      }
    }
  }
  if (const YamlNode* n = node.Find("port")) {
    if (auto port = fields.Integer(*n, "connection port", 1, 65535)) out.port = static_cast<int>(*port);
  }
  if (const YamlNode* n = node.Find("key_file")) {
    if (auto key = fields.String(*n, "connection key_file")) {
      std::string resolved = ResolveUserPath(*key, base_dir, options.home_dir);
      if (!options.file_exists(resolved)) {
        fields.Error(n->location, "key file '" + *key + "' not found (looked for " + resolved + ")");
      } else {
        out.key_file = resolved;
      }
    }
  }
  if (const YamlNode* n = node.Find("become")) {
    if (auto become = fields.Choice(*n, "connection become", {"sudo", "none"})) {
      out.become = *become == "sudo" ? Become::kSudo : Become::kNone;
    }
  }
  if (const YamlNode* n = node.Find("jump_host")) {
    if (n->is_null()) {
      out.jump_host = std::optional<JumpHost>();
    } else if (auto text = fields.String(*n, "connection jump_host")) {
      JumpHost jump;
      if (std::optional<std::string> problem = ParseJumpHost(*text, jump)) {
        fields.Error(n->location, "jump_host '" + *text + "' is not [user@]host[:port]: " + *problem);
      } else {
        out.jump_host = jump;
      }
    }
  }
  if (const YamlNode* n = node.Find("host_key_policy")) {
    if (auto policy = fields.Choice(*n, "connection host_key_policy", {"strict", "accept-new"})) {
      out.host_key_policy = *policy == "strict" ? HostKeyPolicy::kStrict : HostKeyPolicy::kAcceptNew;
    }
  }
  if (const YamlNode* n = node.Find("connect_timeout")) {
    if (auto t = fields.Integer(*n, "connection connect_timeout (seconds)", 1, 3600)) {
      out.connect_timeout_s = static_cast<int>(*t);
    }
  }
  if (fields.diagnostics().error_count() > errors_before) return std::nullopt;
  return out;
}

}  // namespace clusterctl::inventory_internal
