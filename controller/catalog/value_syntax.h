// What a role variable's value must look like, when the role declares it
// (`syntax: {prometheus_listen: address:port}` in a role file, docs/roles.md).
// `clusterctl inventory check`, and every deploy and plan before anything
// runs, refuse an inventory value that does not have its variable's syntax,
// at the file:line that sets it; the role loader refuses a default that
// does not. This is what a value means (an address, a duration); what would
// break the file it lands in is the template's format (file_format.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clusterctl {

struct ValueSyntax {
  const char* name;  // as a role file writes it: "address:port"
  // Why `text` does not have this syntax ("" when it does).
  std::string (*refuses)(std::string_view text);
};

// nullptr when no syntax has this name.
const ValueSyntax* FindValueSyntax(std::string_view name);
std::vector<std::string> ValueSyntaxNames();

// A value of the `duration` syntax (Prometheus's: 90s, 1d12h, 500ms) in
// milliseconds; nullopt when it is not one. The syntax check is this.
std::optional<int64_t> PrometheusDurationMs(std::string_view text);

}  // namespace clusterctl
