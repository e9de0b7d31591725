// Templates: the Mustache subset configuration files need, rendered strictly.
//
// Supported: {{name}}, {{{name}}} and {{&name}} (nothing is HTML-escaped:
// these are configuration files, not HTML), dotted names
// (host.facts.cpu.cpus), {{.}}, sections {{#name}}...{{/name}} over lists,
// maps and booleans, inverted sections {{^name}}, comments {{! ...}}.
// Not supported (an error, not silently ignored): partials and delimiter
// changes.
//
// Strict: a name that resolves to nothing is an error with the template's
// file:line, because a config file with a silently empty value is worse than
// no file. Define optional values (as null or false) in the role's vars.
//
// Safe: a template has a format, and a value {{name}} inserts must not break
// out of it (docs/security.md). Inventory values and facts are data; a
// newline in slurm_def_mem_per_cpu must not add a line to slurm.conf, a
// space in slurm_select_parameters must not add a setting, and a database
// name must not end the SQL statement it is part of. The format comes from
// the file's name and each tag's place (bare, quoted, in a comment) from the
// text before it on its line; file_format.h holds the syntaxes.
// {{&name}} and {{{name}}} insert a value as it is (a block of extra
// configuration lines an admin wrote on purpose); not in SQL or shell templates.
//
// Why not kainjow::mustache (a Debian package): it renders a missing name as
// an empty string without telling, HTML-escapes by default, and needs the
// whole context copied into its own data type for every render; with the
// cluster's facts in the context, that copy is per host and per template.
// This renderer walks the JSON context in place.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/diagnostics.h"
#include "controller/catalog/file_format.h"

namespace clusterctl {

class Template {
 public:
  using Format = FileFormat;
  // The format of a template file by its name (FileFormatOf).
  static Format FormatOf(const std::string& file_name) { return FileFormatOf(file_name); }

  // Parses `text`; on error returns nullopt with located diagnostics.
  // `first_line` offsets line numbers for templates embedded in a role file.
  static std::optional<Template> Parse(std::string_view text, const std::string& file, Diagnostics& diagnostics,
                                       int first_line = 1, int first_column = 1, Format format = Format::kLines);

  // Why `text` may not be inserted by {{name}} at `place` in a template of
  // `format` ("" when it may).
  static std::string UnsafeFor(Format format, std::string_view text, ValuePlace place = ValuePlace::kBare) {
    return UnsafeValue(format, place, text);
  }
  Format format() const { return format_; }
  // A variable this template inserts with {{name}} (not raw): its top-level
  // name and its place, for checking inventory values before any rendering.
  struct Slot {
    std::string name;
    ValuePlace place = ValuePlace::kBare;
    bool operator<(const Slot& o) const { return name != o.name ? name < o.name : place < o.place; }
    bool operator==(const Slot& o) const { return name == o.name && place == o.place; }
  };
  // Each (name, place) once, sorted.
  std::vector<Slot> CheckedSlots() const;
  // The top-level names of the tags outside any section (a tag inside a
  // section may name the section's item), and of the outermost sections,
  // once each, sorted: what the template reads from its context.
  std::vector<std::string> TopLevelNames() const;
  // The top-level names of every tag and section at any depth: all a
  // template may read (some of them may be its sections' items' fields).
  std::vector<std::string> NamesAnywhere() const;

  // Renders with `context`. Undefined names are reported (with the tag's
  // location) in `diagnostics` and render as nothing; callers treat any
  // error as fatal.
  std::string Render(const nlohmann::json& context, Diagnostics& diagnostics) const;
  // The same with a stack of contexts, innermost last: a name is looked up
  // from the innermost outwards, so per-role variables shadow host and
  // cluster data without copying them.
  std::string Render(const std::vector<const nlohmann::json*>& stack, Diagnostics& diagnostics) const;

  // True when the text contains no tags (plain strings skip rendering).
  bool is_literal() const { return nodes_.size() <= 1 && (nodes_.empty() || nodes_[0].kind == Node::kText); }

  struct Node {
    enum Kind { kText, kVariable, kSection, kInverted };
    Kind kind = kText;
    std::string text;  // kText: the text; others: the name
    SourceLocation where;
    std::vector<Node> children;  // sections
    bool raw = false;            // {{&name}} / {{{name}}}: inserted as it is
    ValuePlace place = ValuePlace::kBare;  // kVariable: where on its line
  };

 private:
  std::vector<Node> nodes_;
  Format format_ = Format::kLines;
};

// Renders every string inside a JSON value (params of a step) as a template.
// A string that is exactly one tag keeps the type of what it names
// ("{{item.uid}}" -> 1001, "{{item.groups}}" -> a list); "{{name?}}" drops
// the parameter (or list element) when `name` is missing or null. In
// templates too, a trailing '?' makes a missing name null instead of an error.
// Errors are reported at `where` (the step's location).
nlohmann::json RenderStrings(const nlohmann::json& value, const std::vector<const nlohmann::json*>& stack,
                             const SourceLocation& where, Diagnostics& diagnostics);

// Whether `text` is exactly one tag ("{{name}}" or "{{name?}}"): such a
// parameter takes the value's own type and is not checked as text.
bool IsSingleTag(const std::string& text);
// The (dotted) name of such a tag, without '?'; nullopt for other text.
std::optional<std::string> SingleTagName(const std::string& text);

// Looks a dotted name up in a stack of contexts (innermost last). Returns
// nullptr when not found.
const nlohmann::json* LookupName(const std::vector<const nlohmann::json*>& stack, const std::string& name);

}  // namespace clusterctl
