// YamlNode: the project's own parsed-YAML tree, and the only adapter around
// yaml-cpp.
//
// Every user file (inventory, role) is read through ParseYaml, which
//  - refuses input that is too large, not UTF-8, or binary before yaml-cpp sees it;
//  - converts yaml-cpp exceptions into diagnostics with file:line:column;
//  - copies the document into YamlNode with a budget on node count and depth,
//    so an alias bomb ("billion laughs") or absurd nesting is rejected in
//    bounded time and memory instead of being expanded by later walks;
//  - reports duplicate map keys (YAML forbids them; yaml-cpp keeps both).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/diagnostics.h"

namespace clusterctl {

struct YamlLimits {
  size_t max_bytes = 16 * 1024 * 1024;
  int max_depth = 64;
  size_t max_nodes = 1'000'000;  // after alias expansion
  // Not a limit: Ansible's own scalar tags are read instead of refused,
  // `!unsafe` as a string and `!vault` (an ansible-vault secret) as a string
  // marked YamlNode::vault. For Ansible's group_vars/host_vars files only.
  bool ansible_tags = false;
};

struct YamlNode {
  enum class Kind { kNull, kScalar, kSequence, kMap };

  Kind kind = Kind::kNull;
  std::string scalar;      // kScalar: the text as written (without quotes)
  bool quoted = false;     // kScalar: quoted or tagged !!str, never a number/bool
  bool vault = false;      // kScalar: tagged !vault (YamlLimits::ansible_tags): ciphertext of a secret
  SourceLocation location;
  std::vector<YamlNode> items;                            // kSequence
  std::vector<std::pair<std::string, YamlNode>> entries;  // kMap, in file order
  std::vector<SourceLocation> key_locations;              // kMap, parallel to entries

  // Out of line: a vector of pairs holding this very type is complete only
  // after the class (clang checks it where the members are defined).
  YamlNode();
  ~YamlNode();
  YamlNode(const YamlNode&);
  YamlNode(YamlNode&&) noexcept;
  YamlNode& operator=(const YamlNode&);
  YamlNode& operator=(YamlNode&&) noexcept;

  bool is_null() const { return kind == Kind::kNull; }
  bool is_scalar() const { return kind == Kind::kScalar; }
  bool is_sequence() const { return kind == Kind::kSequence; }
  bool is_map() const { return kind == Kind::kMap; }

  // kMap: the value for `key`, or nullptr.
  const YamlNode* Find(std::string_view key) const;

  // "map", "list", "string", "null": for "expected a map, got a list" messages.
  const char* KindName() const;
};

// Reads a whole file, refusing files over `limits.max_bytes` without reading
// them fully. Returns nullopt (with a diagnostic) when the file cannot be read.
std::optional<std::string> ReadUserFile(const std::string& path, const YamlLimits& limits,
                                        Diagnostics& diagnostics);

// Parses one YAML document. Returns nullopt when any error was reported,
// except, with `past_duplicate_keys`, duplicate keys (reported; the first
// is kept), so that a reader can go on and report the file's other
// problems in the same pass. An empty document yields a kNull node.
std::optional<YamlNode> ParseYaml(std::string_view text, const std::string& file_name,
                                  const YamlLimits& limits, Diagnostics& diagnostics, bool past_duplicate_keys = false);

// Converts a node to JSON. Plain scalars are typed the way Ansible users expect
// (YAML 1.1 booleans yes/no/on/off/true/false, integers, floats, null/~);
// quoted scalars stay strings.
nlohmann::json YamlToJson(const YamlNode& node);

// Booleans as admins write them: true/false/yes/no/on/off in any case.
std::optional<bool> ParseYamlBool(std::string_view text);

// Emits JSON as block-style YAML, keys in insertion order (used by
// `inventory import`). Strings that would read back as another type are quoted.
std::string JsonToYaml(const nlohmann::ordered_json& value);

}  // namespace clusterctl
