#include "controller/catalog/variable_docs.h"


#include "common/json_text.h"
#include "common/strings.h"

namespace clusterctl {
namespace {

using json = nlohmann::json;

std::string Text(const json& value) { return value.is_string() ? value.get<std::string>() : JsonText(value); }

void AddRows(const VariableSpec& spec, const std::string& name, std::vector<VariableRow>& rows) {
  rows.push_back({name, DescribeType(spec), DescribeDefault(spec), spec.description});
  const VariableSpec* map = spec.items && !spec.items->fields.empty() ? spec.items.get() : &spec;
  const std::string prefix = map == &spec ? name + "." : name + "[].";
  for (const VariableSpec& field : map->fields) AddRows(field, prefix + field.name, rows);
}

// A Markdown table cell: no line breaks, pipes escaped.
std::string Cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace

std::string DescribeType(const VariableSpec& spec) {
  std::string text = TypeName(spec.type);
  if (spec.type == VariableSpec::Type::kList && spec.items) {
    text = "list of " + DescribeType(*spec.items);
    return text;
  }
  if (!spec.allowed.empty()) {
    std::vector<std::string> names;
    for (const json& value : spec.allowed) names.push_back(Text(value).empty() ? "\"\"" : Text(value));
    text = "one of " + Join(names, ", ");
  }
  if (spec.syntax) text += " (" + std::string(spec.syntax->name) + ")";
  if (spec.file) text += " (a file beside the inventory)";
  if (spec.minimum && spec.maximum) text += ", " + ShortNumber(*spec.minimum) + " to " + ShortNumber(*spec.maximum);
  else if (spec.minimum) text += ", at least " + ShortNumber(*spec.minimum);
  else if (spec.maximum) text += ", at most " + ShortNumber(*spec.maximum);
  if (spec.required) text += ", required";
  return text;
}

std::string DescribeDefault(const VariableSpec& spec) {
  if (!spec.has_default) return "";
  if (spec.default_value.is_string()) {
    const std::string& text = spec.default_value.get_ref<const std::string&>();
    return text.empty() ? "\"\"" : text;
  }
  return JsonText(spec.default_value);
}

std::vector<VariableRow> VariableRows(const VariableSpec& spec) {
  std::vector<VariableRow> rows;
  AddRows(spec, spec.name, rows);
  return rows;
}

std::string VariablesMarkdown(const Catalog& catalog) {
  std::string out;
  auto section = [&](const std::string& title, const std::vector<const VariableSpec*>& specs,
                     const std::vector<std::string>& borrowed) {
    if (specs.empty() && borrowed.empty()) return;
    out += "\n#### " + title + "\n";
    if (!specs.empty()) out += "\n| Variable | Type | Default | What |\n|---|---|---|---|\n";
    for (const VariableSpec* spec : specs) {
      for (const VariableRow& row : VariableRows(*spec)) {
        const std::string shown_default = row.default_value.empty() ? "" : "`" + Cell(row.default_value) + "`";
        out += "| `" + row.name + "` | " + Cell(row.type) + " | " + shown_default + " | " + Cell(row.description) + " |\n";
      }
    }
    if (!borrowed.empty()) out += "\nAlso reads " + Join(borrowed, ", ") + ".\n";
  };
  for (const auto& [name, role] : catalog.roles()) {
    std::vector<const VariableSpec*> own;
    std::vector<std::string> borrowed;
    for (const auto& [variable, spec] : role.variables) {
      if (role.variables_from.count(variable)) borrowed.push_back("`" + variable + "` (" + spec.declared_by + ")");
      else own.push_back(&spec);
    }
    section(name, own, borrowed);
  }
  std::vector<const VariableSpec*> validate, deploy;
  for (const auto& [name, spec] : catalog.variables()) {
    if (spec.declared_by == "validate") validate.push_back(&spec);
    if (spec.declared_by == "deploy") deploy.push_back(&spec);
  }
  section("validate (thresholds, [validation.md](validation.md))", validate, {});
  section("deploy (any role's `reboot` step)", deploy, {});
  return out;
}

}  // namespace clusterctl
