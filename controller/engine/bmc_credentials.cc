#include "controller/engine/bmc_credentials.h"

#include <fstream>
#include <optional>

#include "controller/power/power_run.h"
#include "controller/views/bmc_view.h"

namespace clusterctl {
namespace {

// The password ipmitool -f would read: the file's first line, without its line end.
std::optional<std::string> FirstLine(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string line;
  std::getline(in, line);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

// Why `password` cannot stand in the exporter's double-quoted YAML string
// ("" when it can). Said without the password: the template's own refusal
// would quote it.
std::string Unquotable(const std::string& password) {
  for (unsigned char c : password) {
    if (c == '"' || c == '\\' || c < 0x20 || c == 0x7f) {
      return "holds a character the IPMI exporter's config cannot quote (\", \\ or a control character)";
    }
  }
  return "";
}

}  // namespace

BmcCredentials ReadBmcCredentials(const Inventory& inventory) {
  BmcCredentials credentials;
  if (inventory.MembersOf(kGroupMonitoring).empty()) return credentials;
  Result<nlohmann::json> view = BuildBmcView(inventory, {}, {});
  for (const nlohmann::json& bmc : view.ok() ? (*view)["hosts"] : nlohmann::json::array()) {
    const Host& host = *inventory.FindHost(bmc["name"].get<std::string>());
    const std::string& file = host.bmc->password_file;
    std::string problem = PasswordFileProblem(file);
    std::optional<std::string> password = problem.empty() ? FirstLine(file) : std::nullopt;
    if (problem.empty() && !password) problem = "bmc password file " + file + " cannot be read";
    if (problem.empty() && !Unquotable(*password).empty()) problem = "bmc password file " + file + " " + Unquotable(*password);
    if (!problem.empty()) {
      credentials.problems.push_back(problem + " (host " + host.name + ", for the IPMI exporter)");
      continue;
    }
    credentials.passwords["bmc password of " + host.name] = *password;
    nlohmann::json item = bmc;
    item["password"] = *password;
    credentials.list.push_back(std::move(item));
  }
  return credentials;
}

}  // namespace clusterctl
