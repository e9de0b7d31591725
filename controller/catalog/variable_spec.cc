#include "controller/catalog/variable_spec.h"

#include <algorithm>

#include <sys/stat.h>
#include <unistd.h>


#include "common/json_text.h"
#include "common/strings.h"
#include "inventory/inventory_file.h"
#include "inventory/sensitive_file.h"

namespace clusterctl {
namespace {

using json = nlohmann::json;
using Type = VariableSpec::Type;

const std::vector<std::string> kDeclarationKeys = {"default", "type",  "allowed", "syntax", "minimum", "maximum",
                                                   "file",    "private_key", "secret", "items", "fields",  "description"};
const std::vector<std::string> kFieldKeys = {"default", "type",  "allowed", "syntax",   "minimum",    "maximum",
                                             "file",    "private_key", "secret", "items", "fields",  "required", "description"};

const std::vector<std::pair<std::string, Type>> kTypes = {
    {"string", Type::kString}, {"integer", Type::kInteger}, {"number", Type::kNumber},
    {"boolean", Type::kBoolean}, {"list", Type::kList}, {"map", Type::kMap}, {"scalar", Type::kScalar}};

Type TypeOf(const json& value) {
  if (value.is_number_integer()) return Type::kInteger;
  if (value.is_number()) return Type::kNumber;
  if (value.is_boolean()) return Type::kBoolean;
  if (value.is_string()) return Type::kString;
  if (value.is_array()) return Type::kList;
  if (value.is_object()) return Type::kMap;
  return Type::kAny;
}

bool HasType(Type type, const json& value) {
  switch (type) {
    case Type::kAny: return true;
    case Type::kNumber: return value.is_number();
    case Type::kScalar: return value.is_primitive() && !value.is_null();
    default: return TypeOf(value) == type;
  }
}

// "an integer", "a string", ...: what a value is, for messages.
std::string KindOf(const json& value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_boolean()) return "true or false";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "a list";
  if (value.is_object()) return "a map";
  return "nothing";
}

std::string Wanted(Type type) {
  switch (type) {
    case Type::kInteger: return "an integer";
    case Type::kNumber: return "a number";
    case Type::kBoolean: return "true or false";
    case Type::kString: return "a string";
    case Type::kList: return "a list";
    case Type::kMap: return "a map";
    case Type::kScalar: return "one value (text, a number or true/false)";
    case Type::kAny: return "a value";
  }
  return "a value";
}

std::string TextOf(const json& value) { return value.is_string() ? value.get<std::string>() : JsonText(value); }
std::string Shown(const json& value) { return Printable(TextOf(value), 40); }

// For a string written without quotes that YAML read as a number or true/false:
// how to keep it as written. A number has lost how it was written (23.10 reads
// as 23.1, 08 as 8), so the hint says so rather than guess the original text.
std::string QuoteHint(Type wanted, const json& value) {
  if (wanted != Type::kString) return "";
  if (value.is_number_float()) {
    return ": YAML reads an unquoted number as a number, dropping trailing zeros (23.10 is 23.1); quote it: \"23.10\"";
  }
  if (value.is_number()) return ": YAML reads an unquoted number as a number; quote it: \"" + TextOf(value) + "\"";
  if (value.is_boolean()) return ": YAML reads unquoted yes/no/true/false as true or false; quote it";
  return "";
}

class SpecParser {
 public:
  explicit SpecParser(YamlFields& fields) : fields_(fields) {}

  std::optional<VariableSpec> Parse(const std::string& name, const YamlNode& node, bool is_field) {
    const std::string what = (is_field ? "field '" : "variable '") + name + "'";
    if (!node.is_map()) {
      fields_.Error(node.location, what + ": expected a declaration (a map with default and description), got a " +
                                       node.KindName());
      return std::nullopt;
    }
    const int errors_before = fields_.diagnostics().error_count();
    fields_.CheckKnownKeys(node, is_field ? kFieldKeys : kDeclarationKeys, what);
    VariableSpec spec;
    spec.name = name;
    spec.where = node.location;
    ReadDefaultAndType(node, what, is_field, spec);
    ReadConstraints(node, what, spec);
    ReadParts(node, what, spec);
    if (const YamlNode* v = node.Find("description")) spec.description = fields_.String(*v, what + " description").value_or("");
    if (spec.description.empty() && !is_field) fields_.Error(node.location, what + " needs a one-line description");
    if (fields_.diagnostics().error_count() > errors_before) return std::nullopt;
    CheckDefault(node, what, spec);
    if (fields_.diagnostics().error_count() > errors_before) return std::nullopt;
    return spec;
  }

 private:
  void ReadDefaultAndType(const YamlNode& node, const std::string& what, bool is_field, VariableSpec& spec) {
    if (const YamlNode* v = node.Find("default")) {
      spec.default_value = YamlToJson(*v);
      spec.has_default = true;
    } else if (!is_field) {
      fields_.Error(node.location, what + " needs a default (null: unset unless the inventory sets it)");
    }
    if (const YamlNode* v = node.Find("type")) {
      std::vector<std::string> names;
      for (const auto& [type_name, type] : kTypes) names.push_back(type_name);
      if (auto chosen = fields_.Choice(*v, what + " type", names)) {
        for (const auto& [type_name, type] : kTypes) {
          if (type_name == *chosen) spec.type = type;
        }
      }
    } else if (!spec.default_value.is_null()) {
      spec.type = TypeOf(spec.default_value);
    } else {
      fields_.Error(node.location, what + " needs a type (its default gives none)");
    }
    if (const YamlNode* v = node.Find("required")) spec.required = fields_.Bool(*v, what + " required").value_or(false);
  }

  void ReadConstraints(const YamlNode& node, const std::string& what, VariableSpec& spec) {
    if (const YamlNode* v = node.Find("allowed")) {
      if (fields_.ExpectSequence(*v, what + " allowed", false)) {
        for (const YamlNode& item : v->items) {
          if (!item.is_scalar()) fields_.Error(item.location, what + " allowed: each value must be a single value");
          else spec.allowed.push_back(YamlToJson(item));
        }
      }
    }
    if (const YamlNode* v = node.Find("syntax")) {
      if (auto syntax_name = fields_.String(*v, what + " syntax")) {
        spec.syntax = FindValueSyntax(*syntax_name);
        if (!spec.syntax) {
          fields_.Error(v->location, "unknown syntax '" + *syntax_name + "' (one of: " + Join(ValueSyntaxNames(), ", ") +
                                         ")" + DidYouMean(*syntax_name, ValueSyntaxNames()));
        }
      }
    }
    for (const char* bound : {"minimum", "maximum"}) {
      const YamlNode* v = node.Find(bound);
      if (!v) continue;
      const json number = YamlToJson(*v);
      if (!number.is_number()) fields_.Error(v->location, what + " " + bound + " must be a number");
      else (std::string(bound) == "minimum" ? spec.minimum : spec.maximum) = number.get<double>();
    }
    if (const YamlNode* v = node.Find("file")) spec.file = fields_.Bool(*v, what + " file").value_or(false);
    if (spec.file && spec.type != Type::kString) fields_.Error(node.location, what + ": file: true needs type string");
    if (const YamlNode* v = node.Find("private_key")) spec.private_key = fields_.Bool(*v, what + " private_key").value_or(false);
    if (spec.private_key && !spec.file) fields_.Error(node.location, what + ": private_key: true needs file: true");
    if (const YamlNode* v = node.Find("secret")) spec.secret = fields_.Bool(*v, what + " secret").value_or(false);
  }

  void ReadParts(const YamlNode& node, const std::string& what, VariableSpec& spec) {
    if (const YamlNode* v = node.Find("items")) {
      if (spec.type != Type::kList) fields_.Error(v->location, what + ": items belong to a list");
      else if (auto items = Parse(spec.name + "[]", *v, true)) spec.items = std::make_shared<VariableSpec>(std::move(*items));
    }
    if (const YamlNode* v = node.Find("fields")) {
      if (spec.type != Type::kMap) fields_.Error(v->location, what + ": fields belong to a map");
      else if (fields_.ExpectMap(*v, what + " fields", false)) {
        for (const auto& [field_name, field_node] : v->entries) {
          if (auto field = Parse(field_name, field_node, true)) spec.fields.push_back(std::move(*field));
        }
      }
    }
  }

  // The default must pass its own declaration.
  void CheckDefault(const YamlNode& node, const std::string& what, const VariableSpec& spec) {
    if (!spec.has_default) return;
    for (const std::string& problem : DefaultProblems(spec, "the default")) {
      fields_.Error(node.Find("default")->location, what + ": " + problem);
    }
  }

  YamlFields& fields_;
};

// A value against the spec's type and single-value constraints.
void CheckScalar(const VariableSpec& spec, const json& value, const std::string& path, const ValueCheckContext& context,
                 std::vector<std::string>& problems) {
  if (!spec.allowed.empty() && std::find(spec.allowed.begin(), spec.allowed.end(), value) == spec.allowed.end()) {
    std::vector<std::string> names;
    for (const json& allowed : spec.allowed) names.push_back(TextOf(allowed));
    problems.push_back(path + " is " + Shown(value) + ", not one of: " + Join(names, ", ") +
                       (value.is_string() ? DidYouMean(value.get<std::string>(), names) : ""));
    return;
  }
  if (spec.syntax) {
    if (std::string refused = spec.syntax->refuses(TextOf(value)); !refused.empty()) {
      problems.push_back(path + " (" + Shown(value) + ") " + refused);
    }
  }
  if (value.is_number()) {
    const double number = value.get<double>();
    if (spec.minimum && number < *spec.minimum) problems.push_back(path + " is " + Shown(value) + ", below its minimum " + ShortNumber(*spec.minimum));
    if (spec.maximum && number > *spec.maximum) problems.push_back(path + " is " + Shown(value) + ", above its maximum " + ShortNumber(*spec.maximum));
  }
  if (spec.file && value.is_string() && !value.get<std::string>().empty()) {
    auto resolved = ResolveInventoryFile(context.inventory_dir, value.get<std::string>());
    struct stat st {};
    if (!resolved.ok()) {
      if (!context.containment_checked_by_step) problems.push_back(path + ": " + resolved.status().message());
    } else if (::stat(resolved->c_str(), &st) != 0 || !S_ISREG(st.st_mode) || ::access(resolved->c_str(), R_OK) != 0) {
      problems.push_back(path + " names '" + Printable(value.get<std::string>(), 80) +
                         "', which is not a readable file beside the inventory (in " + context.inventory_dir + ")");
    } else if (std::string refused = SensitiveFileRefusal(*resolved, context.inventory_dir, context.connection_keys,
                                                          spec.private_key);
               !refused.empty()) {
      problems.push_back(path + " names '" + Printable(value.get<std::string>(), 80) + "', which is not sent to nodes: " +
                         refused);
    }
  }
}

void CheckFields(const VariableSpec& spec, const json& value, const std::string& path, const ValueCheckContext& context,
                 std::vector<std::string>& problems) {
  std::vector<std::string> names;
  for (const VariableSpec& field : spec.fields) names.push_back(field.name);
  for (const auto& [key, item] : value.items()) {
    if (const VariableSpec* field = spec.Field(key)) {
      auto more = CheckVariableValue(*field, item, path + "." + key, context);
      problems.insert(problems.end(), more.begin(), more.end());
    } else {
      problems.push_back(path + ": unknown key '" + Printable(key, 40) + "'" + DidYouMean(key, names) +
                         "; known: " + Join(names, ", "));
    }
  }
  for (const VariableSpec& field : spec.fields) {
    if (field.required && !value.contains(field.name)) problems.push_back(path + ": missing '" + field.name + "'");
  }
}

}  // namespace

const VariableSpec* VariableSpec::Field(const std::string& field_name) const {
  for (const VariableSpec& field : fields) {
    if (field.name == field_name) return &field;
  }
  return nullptr;
}

const char* TypeName(VariableSpec::Type type) {
  for (const auto& [name, t] : kTypes) {
    if (t == type) return name.c_str();
  }
  return "any";
}

std::vector<std::string> DefaultProblems(const VariableSpec& spec, const std::string& path) {
  if (spec.default_value.is_null()) return {};
  VariableSpec own = spec;
  own.file = false;
  return CheckVariableValue(own, spec.default_value, path, {});
}

VariableSpec InferVariableSpec(const std::string& name, const json& default_value) {
  VariableSpec spec;
  spec.name = name;
  spec.type = TypeOf(default_value);
  spec.default_value = default_value;
  spec.has_default = true;
  spec.inferred = true;
  return spec;
}

std::optional<VariableSpec> ParseVariableSpec(const std::string& name, const YamlNode& node, bool is_field,
                                              YamlFields& fields) {
  return SpecParser(fields).Parse(name, node, is_field);
}

void CollectSecretValues(const VariableSpec& spec, const json& value, std::vector<std::string>& out) {
  if (spec.secret && value.is_string() && !value.get_ref<const std::string&>().empty()) out.push_back(value.get<std::string>());
  if (value.is_array() && spec.items) {
    for (const json& item : value) CollectSecretValues(*spec.items, item, out);
  }
  if (value.is_object()) {
    for (const VariableSpec& field : spec.fields) {
      if (auto it = value.find(field.name); it != value.end()) CollectSecretValues(field, *it, out);
    }
  }
}

std::vector<std::string> CheckVariableValue(const VariableSpec& spec, const json& value, const std::string& path,
                                            const ValueCheckContext& context) {
  std::vector<std::string> problems;
  if (value.is_null()) {
    if (spec.has_default && !spec.default_value.is_null()) {
      problems.push_back(path + " must be " + Wanted(spec.type) + ", not nothing (null)");
    }
    return problems;
  }
  if (!HasType(spec.type, value)) {
    problems.push_back(path + " must be " + Wanted(spec.type) + ", not " + KindOf(value) + " (" + Shown(value) + ")" +
                      QuoteHint(spec.type, value));
    return problems;
  }
  if (value.is_array()) {
    // A list's own syntax judges the whole list: its items joined by ','.
    if (spec.syntax && std::all_of(value.begin(), value.end(), [](const json& item) { return item.is_string(); })) {
      std::vector<std::string> items;
      for (const json& item : value) items.push_back(item.get<std::string>());
      if (std::string refused = spec.syntax->refuses(Join(items, ",")); !refused.empty()) {
        problems.push_back(path + " " + refused);
      }
    }
    if (spec.items) {
      for (size_t i = 0; i < value.size(); ++i) {
        auto more = CheckVariableValue(*spec.items, value[i], path + "[" + std::to_string(i) + "]", context);
        problems.insert(problems.end(), more.begin(), more.end());
      }
    }
  } else if (value.is_object()) {
    if (!spec.fields.empty()) CheckFields(spec, value, path, context, problems);
  } else {
    CheckScalar(spec, value, path, context, problems);
  }
  return problems;
}

}  // namespace clusterctl
