#include "controller/catalog/template.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "common/json_text.h"
#include "common/strings.h"

namespace clusterctl {
namespace {

using Node = Template::Node;

struct Parser {
  std::string_view text;
  std::string file;
  Diagnostics& diagnostics;
  int line;
  int column;
  Template::Format format;
  size_t pos = 0;

  // A raw insertion is for configuration text an admin wrote on purpose
  // (AllowsRawInsertion says where).
  bool Raw(const std::string& name, const SourceLocation& where) {
    if (AllowsRawInsertion(format)) return true;
    diagnostics.Error(where, "'" + name + "' is inserted raw ({{&...}} or {{{...}}}), which this " +
                                 FileFormatName(format) + " template may not do; use {{" + name + "}}");
    return false;
  }

  SourceLocation Here() const { return {file, line, column}; }

  // The place of a tag starting at `tag_start`: from the template's text on
  // its line before it, tags left out.
  ValuePlace PlaceOf(size_t tag_start) const {
    const size_t newline = text.rfind('\n', tag_start == 0 ? 0 : tag_start - 1);
    size_t at = (newline == std::string_view::npos || tag_start == 0) ? 0 : newline + 1;
    if (tag_start > 0 && text[tag_start - 1] == '\n') at = tag_start;
    std::string before;
    while (at < tag_start) {
      const size_t open = text.find("{{", at);
      if (open == std::string_view::npos || open >= tag_start) {
        before.append(text.substr(at, tag_start - at));
        break;
      }
      before.append(text.substr(at, open - at));
      const size_t close = text.find("}}", open + 2);
      if (close == std::string_view::npos) break;
      at = close + 2;
      if (at < text.size() && text[at] == '}') ++at;  // {{{name}}}
    }
    return PlaceAfter(format, before);
  }

  void Advance(size_t n) {
    for (size_t i = 0; i < n && pos < text.size(); ++i, ++pos) {
      if (text[pos] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
  }

  // Mustache's standalone rule: a section, closing or comment tag alone on
  // its line leaves no blank line behind. `tag_start` is where the tag began;
  // `pos` is just after it.
  void SkipStandalone(std::vector<Node>& out, size_t tag_start) {
    size_t line_start = text.rfind('\n', tag_start == 0 ? 0 : tag_start - 1);
    line_start = (line_start == std::string_view::npos || tag_start == 0) ? 0 : line_start + 1;
    if (tag_start > 0 && text[tag_start - 1] == '\n') line_start = tag_start;
    for (size_t i = line_start; i < tag_start; ++i) {
      if (text[i] != ' ' && text[i] != '\t') return;
    }
    size_t after = pos;
    while (after < text.size() && (text[after] == ' ' || text[after] == '\t' || text[after] == '\r')) ++after;
    if (after < text.size() && text[after] != '\n') return;
    // Drop the indentation before the tag from the preceding text node...
    if (tag_start > line_start && !out.empty() && out.back().kind == Node::kText) {
      std::string& previous = out.back().text;
      previous.erase(previous.size() - std::min(previous.size(), tag_start - line_start));
    }
    // ...and the rest of the line, newline included.
    Advance(std::min(text.size(), after + 1) - pos);
  }

  static constexpr int kMaxSectionDepth = 64;
  int depth = 0;

  // Parses nodes until `closing` (a section's name) or the end.
  bool ParseNodes(std::vector<Node>& out, const std::string& closing) {
    while (pos < text.size()) {
      size_t open = text.find("{{", pos);
      if (open == std::string_view::npos) {
        out.push_back({Node::kText, std::string(text.substr(pos)), Here(), {}});
        Advance(text.size() - pos);
        break;
      }
      if (open > pos) {
        out.push_back({Node::kText, std::string(text.substr(pos, open - pos)), Here(), {}});
        Advance(open - pos);
      }
      SourceLocation tag_at = Here();
      const bool triple = text.substr(pos, 3) == "{{{";
      const std::string_view end_marker = triple ? "}}}" : "}}";
      size_t close = text.find(end_marker, pos + (triple ? 3 : 2));
      if (close == std::string_view::npos) {
        diagnostics.Error(tag_at, "template tag '{{' is never closed");
        return false;
      }
      std::string inner(Trim(text.substr(pos + (triple ? 3 : 2), close - pos - (triple ? 3 : 2))));
      Advance(close + end_marker.size() - pos);
      if (!triple && !inner.empty() && std::string_view("#^/!").find(inner[0]) != std::string_view::npos) {
        SkipStandalone(out, open);
      }
      if (triple) {
        if (!Raw(inner, tag_at)) return false;
        out.push_back({Node::kVariable, inner, tag_at, {}, true});
        continue;
      }
      if (inner.empty()) {
        diagnostics.Error(tag_at, "empty template tag {{}}");
        return false;
      }
      char sigil = inner[0];
      std::string name(Trim(std::string_view(inner).substr(1)));
      switch (sigil) {
        case '!':
          break;
        case '#':
        case '^': {
          // Sections nest by recursion (here and when rendering): bounded,
          // so a hostile template is an error, not a stack overflow (a fuzz find).
          if (++depth > kMaxSectionDepth) {
            diagnostics.Error(tag_at, "sections nested deeper than " + std::to_string(kMaxSectionDepth) + " levels");
            return false;
          }
          Node section{sigil == '#' ? Node::kSection : Node::kInverted, name, tag_at, {}};
          const bool parsed = ParseNodes(section.children, name);
          --depth;
          if (!parsed) return false;
          out.push_back(std::move(section));
          break;
        }
        case '/':
          if (name != closing) {
            diagnostics.Error(tag_at, closing.empty() ? "{{/" + name + "}} closes a section that was never opened"
                                                      : "{{/" + name + "}} does not close {{#" + closing + "}}");
            return false;
          }
          return true;
        case '>':
          diagnostics.Error(tag_at, "partials ({{> " + name + "}}) are not supported");
          return false;
        case '=':
          diagnostics.Error(tag_at, "changing delimiters is not supported");
          return false;
        case '&':
          if (!Raw(name, tag_at)) return false;
          out.push_back({Node::kVariable, name, tag_at, {}, true});
          break;
        default: {
          Node variable{Node::kVariable, inner, tag_at, {}};
          variable.place = PlaceOf(open);
          out.push_back(std::move(variable));
        }
      }
    }
    if (!closing.empty()) {
      diagnostics.Error(Here(), "section {{#" + closing + "}} is never closed");
      return false;
    }
    return true;
  }
};

std::string ScalarText(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "";
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_float()) {
    std::string text = JsonText(value);
    return text;
  }
  return JsonText(value);
}

bool Truthy(const nlohmann::json& value) {
  if (value.is_null()) return false;
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_array() || value.is_object()) return !value.empty();
  if (value.is_string()) return !value.get_ref<const std::string&>().empty();
  if (value.is_number()) return value.get<double>() != 0;
  return true;
}

void RenderNodes(const std::vector<Node>& nodes, Template::Format format, std::vector<const nlohmann::json*>& stack,
                 std::string& out, Diagnostics& diagnostics) {
  for (const Node& node : nodes) {
    if (node.kind == Node::kText) {
      out += node.text;
      continue;
    }
    static const nlohmann::json kNull = nullptr;
    const bool optional = !node.text.empty() && node.text.back() == '?';
    const std::string name = optional ? node.text.substr(0, node.text.size() - 1) : node.text;
    const nlohmann::json* value = LookupName(stack, name);
    if (!value && optional) value = &kNull;  // name? : a missing value is null, not an error
    if (!value) {
      diagnostics.Error(node.where, "undefined variable '" + node.text + "' in template");
      continue;
    }
    switch (node.kind) {
      case Node::kVariable:
        if (value->is_array() || value->is_object()) {
          diagnostics.Error(node.where, "'" + name + "' is a " + (value->is_array() ? "list" : "map") +
                                            "; iterate it with {{#" + name + "}}...{{/" + name + "}}");
        } else {
          const std::string text = ScalarText(*value);
          const std::string unsafe = node.raw ? "" : Template::UnsafeFor(format, text, node.place);
          if (!unsafe.empty()) {
            diagnostics.Error(node.where, "the value of '" + name + "' (" + Printable(text) + ") " + unsafe);
          } else {
            out += text;
          }
        }
        break;
      case Node::kSection:
        if (value->is_array()) {
          for (const nlohmann::json& item : *value) {
            stack.push_back(&item);
            RenderNodes(node.children, format, stack, out, diagnostics);
            stack.pop_back();
          }
        } else if (value->is_object()) {
          if (!value->empty()) {
            stack.push_back(value);
            RenderNodes(node.children, format, stack, out, diagnostics);
            stack.pop_back();
          }
        } else if (Truthy(*value)) {
          RenderNodes(node.children, format, stack, out, diagnostics);
        }
        break;
      case Node::kInverted:
        if (!Truthy(*value)) RenderNodes(node.children, format, stack, out, diagnostics);
        break;
      default:
        break;
    }
  }
}

}  // namespace

const nlohmann::json* LookupName(const std::vector<const nlohmann::json*>& stack, const std::string& name) {
  if (name == ".") return stack.empty() ? nullptr : stack.back();
  std::vector<std::string> parts = Split(name, '.');
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    const nlohmann::json* current = *it;
    if (!current->is_object() || !current->contains(parts[0])) continue;
    current = &(*current)[parts[0]];
    for (size_t i = 1; i < parts.size() && current; ++i) {
      if (current->is_object() && current->contains(parts[i])) {
        current = &(*current)[parts[i]];
      } else if (current->is_array() && !parts[i].empty() &&
                 parts[i].find_first_not_of("0123456789") == std::string::npos &&
                 std::stoul(parts[i]) < current->size()) {
        current = &(*current)[std::stoul(parts[i])];
      } else {
        current = nullptr;
      }
    }
    return current;  // the first context that has the head name decides (Mustache rule)
  }
  return nullptr;
}

std::optional<Template> Template::Parse(std::string_view text, const std::string& file, Diagnostics& diagnostics,
                                        int first_line, int first_column, Format format) {
  Template t;
  t.format_ = format;
  Parser parser{text, file, diagnostics, first_line, first_column, format};
  if (!parser.ParseNodes(t.nodes_, "")) return std::nullopt;
  return t;
}

namespace {

void CollectCheckedSlots(const std::vector<Node>& nodes, std::vector<Template::Slot>& slots) {
  for (const Node& node : nodes) {
    if (node.kind == Node::kVariable && !node.raw) {
      std::string name = node.text;
      if (!name.empty() && name.back() == '?') name.pop_back();
      slots.push_back({name.substr(0, name.find('.')), node.place});
    }
    CollectCheckedSlots(node.children, slots);
  }
}

}  // namespace

std::vector<Template::Slot> Template::CheckedSlots() const {
  std::vector<Slot> slots;
  CollectCheckedSlots(nodes_, slots);
  std::sort(slots.begin(), slots.end());
  slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
  return slots;
}

namespace {

void CollectNames(const std::vector<Template::Node>& nodes, bool descend, std::set<std::string>& names) {
  for (const Template::Node& node : nodes) {
    if (node.kind == Template::Node::kText) continue;
    std::string name = node.text;
    if (!name.empty() && name.back() == '?') name.pop_back();
    if (name != ".") names.insert(name.substr(0, name.find('.')));
    if (descend) CollectNames(node.children, descend, names);
  }
}

}  // namespace

std::vector<std::string> Template::TopLevelNames() const {
  std::set<std::string> names;
  CollectNames(nodes_, false, names);
  return {names.begin(), names.end()};
}

std::vector<std::string> Template::NamesAnywhere() const {
  std::set<std::string> names;
  CollectNames(nodes_, true, names);
  return {names.begin(), names.end()};
}

std::string Template::Render(const nlohmann::json& context, Diagnostics& diagnostics) const {
  return Render(std::vector<const nlohmann::json*>{&context}, diagnostics);
}

std::string Template::Render(const std::vector<const nlohmann::json*>& stack, Diagnostics& diagnostics) const {
  std::string out;
  std::vector<const nlohmann::json*> working = stack;
  RenderNodes(nodes_, format_, working, out, diagnostics);
  return out;
}

namespace {

// A parameter that is exactly one tag, "{{name}}" or "{{name?}}".
std::optional<std::pair<std::string, bool>> SingleTag(const std::string& text) {
  if (text.size() < 5 || text.compare(0, 2, "{{") != 0 || text.compare(text.size() - 2, 2, "}}") != 0) return std::nullopt;
  std::string inner(Trim(std::string_view(text).substr(2, text.size() - 4)));
  if (inner.empty() || inner.find_first_of("{}#^/!&>= ") != std::string::npos) return std::nullopt;
  bool optional = inner.back() == '?';
  if (optional) inner.pop_back();
  return std::make_pair(inner, optional);
}

// Marks a parameter to drop ("{{name?}}" that resolved to nothing).
const nlohmann::json& DropMarker() {
  static const nlohmann::json marker = {{"\x01clusterctl-drop", true}};
  return marker;
}

nlohmann::json RenderValue(const nlohmann::json& value, const std::vector<const nlohmann::json*>& stack,
                           const SourceLocation& where, Diagnostics& diagnostics) {
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (text.find("{{") == std::string::npos) return value;
    if (auto tag = SingleTag(text)) {
      // A whole-value tag keeps the value's type: "{{item.uid}}" is a number,
      // "{{item.groups}}" a list; "{{x?}}" drops the parameter when x is missing or null.
      const nlohmann::json* found = LookupName(stack, tag->first);
      if (found && !found->is_null()) return *found;
      if (tag->second) return DropMarker();
      if (!found) {
        diagnostics.Error(where, "undefined variable '" + tag->first + "' in parameter '" + text + "'");
        return value;
      }
      return *found;
    }
    std::optional<Template> t = Template::Parse(text, where.file, diagnostics, where.line, where.column);
    if (!t) return value;
    return t->Render(stack, diagnostics);
  }
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : value) {
      nlohmann::json rendered = RenderValue(item, stack, where, diagnostics);
      if (rendered != DropMarker()) out.push_back(std::move(rendered));
    }
    return out;
  }
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, v] : value.items()) {
      nlohmann::json rendered = RenderValue(v, stack, where, diagnostics);
      if (rendered != DropMarker()) out[k] = std::move(rendered);
    }
    return out;
  }
  return value;
}

}  // namespace

bool IsSingleTag(const std::string& text) { return SingleTag(text).has_value(); }

std::optional<std::string> SingleTagName(const std::string& text) {
  auto tag = SingleTag(text);
  return tag ? std::optional<std::string>(tag->first) : std::nullopt;
}

nlohmann::json RenderStrings(const nlohmann::json& value, const std::vector<const nlohmann::json*>& stack,
                             const SourceLocation& where, Diagnostics& diagnostics) {
  nlohmann::json rendered = RenderValue(value, stack, where, diagnostics);
  return rendered == DropMarker() ? nlohmann::json(nullptr) : rendered;
}

}  // namespace clusterctl
