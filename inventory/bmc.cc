#include "inventory/bmc.h"

#include "inventory/connection.h"

namespace clusterctl {

const char* ToString(BmcInterface interface) { return interface == BmcInterface::kLan ? "lan" : "lanplus"; }

nlohmann::json BmcSettings::ToJson() const {
  return {{"address", address},
          {"port", port},
          {"user", user},
          {"password_file", password_file},
          {"interface", clusterctl::ToString(interface)},
          {"cipher_suite", cipher_suite ? nlohmann::json(*cipher_suite) : nlohmann::json(nullptr)}};
}

void BmcOverrides::ApplyTo(BmcSettings& settings) const {
  if (address) settings.address = *address;
  if (port) settings.port = *port;
  if (user) settings.user = *user;
  if (password_file) settings.password_file = *password_file;
  if (interface) settings.interface = *interface;
  if (cipher_suite) settings.cipher_suite = *cipher_suite;
}

bool IsBmcUserName(const std::string& name) { return name.size() <= kMaxBmcUserLength && IsUserName(name); }

}  // namespace clusterctl
