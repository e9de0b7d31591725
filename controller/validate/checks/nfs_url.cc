#include "controller/validate/checks/nfs_url.h"

namespace clusterctl::checks {

std::string NfsValidateUrl(const nlohmann::json& mount, const nlohmann::json& per_host, const std::string& file) {
  bool v3;
  if (mount.value("external", false)) {
    v3 = mount.value("vers", std::string()).rfind('4', 0) != 0;
  } else {
    const std::string server = mount["server"].get<std::string>();
    v3 = per_host.contains(server) && per_host[server].value("vers3", false);
  }
  const std::string address = mount["server_address"].get<std::string>();
  const std::string host = address.find(':') != std::string::npos ? "[" + address + "]" : address;
  return "nfs://" + host + mount["export"].get<std::string>() + "/" + kNfsValidateDir + (file.empty() ? "" : "/" + file) +
         (v3 ? "" : "?version=4");
}

}  // namespace clusterctl::checks
