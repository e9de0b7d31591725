// Validation of the addresses an admin writes in an inventory.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace clusterctl {

// An IPv4/IPv6 literal or a DNS host name. Returns an explanation of what is
// wrong, or nullopt when valid. Dotted-decimal text must be a valid IPv4
// address ("10.0.0.300" is an error, not a host name).
std::optional<std::string> CheckHostAddress(std::string_view address);

// "10.10.0.1/16" (prefix optional). Returns an explanation or nullopt.
std::optional<std::string> CheckInterfaceAddress(std::string_view address);

// A host name as used for node names: letters, digits, '-', '.', '_';
// starting with a letter or digit; at most 63 characters per label.
std::optional<std::string> CheckHostName(std::string_view name);

bool IsIpLiteral(std::string_view text);

// The kernel's names for IPoIB interfaces: "ib0", and a P_Key child
// "ib0.8001" of its parent with that key. nullopt for any other name.
struct IpoibName {
  std::string parent;  // "ib0"
  std::string pkey;    // "0x8001" (lower case); empty for the parent itself
};
std::optional<IpoibName> ParseIpoibName(std::string_view name);

}  // namespace clusterctl
