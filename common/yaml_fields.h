// Typed field access on YamlNode for schema-driven loaders (inventory, roles).
//
// Every helper reports a located diagnostic on mismatch and returns nullopt
// or false, so a loader can continue and list every problem in one pass.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "common/yaml_doc.h"

namespace clusterctl {

class YamlFields {
 public:
  explicit YamlFields(Diagnostics& diagnostics) : diagnostics_(diagnostics) {}

  // Reports every key of `map` not in `allowed`, with a "did you mean".
  // `context` names the map in messages ("host 'gpu01'").
  void CheckKnownKeys(const YamlNode& map, const std::vector<std::string>& allowed,
                      const std::string& context);

  // True when `node` is a map (a null node counts as an empty map when
  // `null_ok`); reports "expected a map" otherwise.
  bool ExpectMap(const YamlNode& node, const std::string& what, bool null_ok = true);
  bool ExpectSequence(const YamlNode& node, const std::string& what, bool null_ok = true);

  std::optional<std::string> String(const YamlNode& node, const std::string& what);
  std::optional<long long> Integer(const YamlNode& node, const std::string& what, long long min,
                                   long long max);
  std::optional<bool> Bool(const YamlNode& node, const std::string& what);
  // One of `choices`, with a "did you mean" for typos.
  std::optional<std::string> Choice(const YamlNode& node, const std::string& what,
                                    const std::vector<std::string>& choices);
  // A list of strings (a single string is accepted as a one-element list).
  std::optional<std::vector<std::string>> StringList(const YamlNode& node, const std::string& what);

  void Error(const SourceLocation& where, std::string message) {
    diagnostics_.Error(where, std::move(message));
  }
  Diagnostics& diagnostics() { return diagnostics_; }

 private:
  Diagnostics& diagnostics_;
};

}  // namespace clusterctl
