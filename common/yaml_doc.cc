#include "common/yaml_doc.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "common/json_text.h"
#include "common/strings.h"

namespace clusterctl {

YamlNode::YamlNode() = default;
YamlNode::~YamlNode() = default;
YamlNode::YamlNode(const YamlNode&) = default;
YamlNode::YamlNode(YamlNode&&) noexcept = default;
YamlNode& YamlNode::operator=(const YamlNode&) = default;
YamlNode& YamlNode::operator=(YamlNode&&) noexcept = default;
namespace {

SourceLocation LocationOf(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return {file, 0, 0};
  return {file, mark.line + 1, mark.column + 1};
}

// Rejects bytes no YAML file contains: invalid UTF-8 and C0 control
// characters other than tab, newline and carriage return.
bool CheckEncoding(std::string_view text, const std::string& file, Diagnostics& diagnostics) {
  if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
    LineColumn lc = LineColumnAt(text, *bad);
    diagnostics.Error({file, lc.line, lc.column},
                      "invalid UTF-8 (byte " + Printable(text.substr(*bad, 1)) +
                          "); inventory and role files must be UTF-8 text");
    return false;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
      LineColumn lc = LineColumnAt(text, i);
      diagnostics.Error({file, lc.line, lc.column},
                        "control character " + Printable(text.substr(i, 1)) +
                            " in text; this looks like a binary file, not YAML");
      return false;
    }
  }
  return true;
}

// yaml-cpp's error for `hosts: [gpu[01-04]]` is "end of sequence flow not
// found" at the end of the file: '[' inside a flow list opens a nested list.
// Finds such a host range so the error can point at it and say what to write.
std::optional<LineColumn> FindRangeInFlowList(std::string_view text) {
  LineColumn at;
  size_t line_start = 0;
  while (line_start < text.size()) {
    size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string_view line = text.substr(line_start, line_end - line_start);
    int depth = 0;
    char quote = 0;
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (quote) {
        if (c == quote) quote = 0;
        continue;
      }
      if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '#' && (i == 0 || line[i - 1] == ' ')) {
        break;
      } else if (c == '[') {
        bool glued = i > 0 && (std::isalnum(static_cast<unsigned char>(line[i - 1])) || line[i - 1] == '.' ||
                               line[i - 1] == '-' || line[i - 1] == '_');
        if (glued && depth > 0) {
          size_t token = i;
          while (token > 0 && line[token - 1] != '[' && line[token - 1] != ',' && line[token - 1] != ' ') --token;
          return LineColumn{at.line, static_cast<int>(token + 1)};
        }
        if (!glued) ++depth;
      } else if (c == '{') {
        ++depth;
      } else if ((c == ']' || c == '}') && depth > 0) {
        --depth;
      }
    }
    ++at.line;
    line_start = line_end + 1;
  }
  return std::nullopt;
}

class Converter {
 public:
  Converter(const std::string& file, const YamlLimits& limits, Diagnostics& diagnostics)
      : file_(file), limits_(limits), diagnostics_(diagnostics) {}

  int duplicate_keys() const { return duplicate_keys_; }

  // Returns false once a limit is exceeded (already reported).
  bool Convert(const YAML::Node& in, int depth, YamlNode& out) {
    if (++node_count_ > limits_.max_nodes) {
      if (!budget_reported_) {
        diagnostics_.Error(LocationOf(file_, in.Mark()),
                           "document expands to more than " + std::to_string(limits_.max_nodes) +
                               " nodes (aliases that multiply, a 'billion laughs' document?)");
        budget_reported_ = true;
      }
      return false;
    }
    if (depth > limits_.max_depth) {
      diagnostics_.Error(LocationOf(file_, in.Mark()),
                         "nesting deeper than " + std::to_string(limits_.max_depth) + " levels");
      return false;
    }
    out.location = LocationOf(file_, in.Mark());
    switch (in.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out.kind = YamlNode::Kind::kNull;
        return true;
      case YAML::NodeType::Scalar:
        return ConvertScalar(in, out);
      case YAML::NodeType::Sequence:
        out.kind = YamlNode::Kind::kSequence;
        out.items.reserve(in.size());
        for (const YAML::Node& item : in) {
          out.items.emplace_back();
          if (!Convert(item, depth + 1, out.items.back())) return false;
        }
        return true;
      case YAML::NodeType::Map:
        return ConvertMap(in, depth, out);
    }
    return true;
  }

 private:
  bool ConvertScalar(const YAML::Node& in, YamlNode& out) {
    out.kind = YamlNode::Kind::kScalar;
    out.scalar = in.Scalar();
    const std::string& tag = in.Tag();
    if (tag == "?" || tag.empty()) {
      out.quoted = false;
    } else if (tag == "!" || tag == "tag:yaml.org,2002:str") {
      out.quoted = true;
    } else if (limits_.ansible_tags && tag == "!unsafe") {
      out.quoted = true;
    } else if (limits_.ansible_tags && tag == "!vault") {
      out.quoted = true;
      out.vault = true;
    } else {
      diagnostics_.Error(out.location, "unsupported YAML tag '" + tag + "'");
      return false;
    }
    return true;
  }

  bool ConvertMap(const YAML::Node& in, int depth, YamlNode& out) {
    out.kind = YamlNode::Kind::kMap;
    std::map<std::string, SourceLocation> seen;
    for (auto it = in.begin(); it != in.end(); ++it) {
      SourceLocation key_location = LocationOf(file_, it->first.Mark());
      if (!it->first.IsScalar()) {
        diagnostics_.Error(key_location, "map keys must be plain strings");
        return false;
      }
      const std::string& key = it->first.Scalar();
      auto [previous, inserted] = seen.emplace(key, key_location);
      if (!inserted) {
        diagnostics_.Error(key_location, "duplicate key '" + key + "' (first at line " +
                                             std::to_string(previous->second.line) + ")");
        ++duplicate_keys_;
        continue;
      }
      out.entries.emplace_back(key, YamlNode{});
      out.key_locations.push_back(key_location);
      if (!Convert(it->second, depth + 1, out.entries.back().second)) return false;
    }
    return true;
  }

  const std::string& file_;
  const YamlLimits& limits_;
  Diagnostics& diagnostics_;
  size_t node_count_ = 0;
  bool budget_reported_ = false;
  int duplicate_keys_ = 0;
};

bool IsInteger(std::string_view s, long long& out) {
  if (s.empty()) return false;
  std::string text(s);
  int base = 10;
  size_t start = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (text.size() > start + 2 && text[start] == '0' && (text[start + 1] == 'x' || text[start + 1] == 'o')) {
    base = text[start + 1] == 'x' ? 16 : 8;
    text.erase(start, 2);
  }
  if (text.size() == start) return false;
  for (size_t i = start; i < text.size(); ++i) {
    char c = text[i];
    bool digit = base == 16 ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                            : (c >= '0' && c < static_cast<char>('0' + base));
    if (!digit) return false;
  }
  errno = 0;
  char* end = nullptr;
  out = std::strtoll(text.c_str(), &end, base);
  return errno == 0 && end == text.c_str() + text.size();
}

bool IsFloat(std::string_view s, double& out) {
  if (s.empty()) return false;
  bool has_digit = false;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      has_digit = true;
    } else if (c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+') {
      return false;
    }
  }
  if (!has_digit) return false;
  std::string text(s);
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(out);
}

void EmitJson(YAML::Emitter& emitter, const nlohmann::ordered_json& value) {
  if (value.is_object()) {
    emitter << YAML::BeginMap;
    for (const auto& [key, item] : value.items()) {
      emitter << YAML::Key << key << YAML::Value;
      EmitJson(emitter, item);
    }
    emitter << YAML::EndMap;
  } else if (value.is_array()) {
    bool scalars_only = true;
    for (const auto& item : value) scalars_only = scalars_only && item.is_primitive();
    emitter << (scalars_only ? YAML::Flow : YAML::Block) << YAML::BeginSeq;
    for (const auto& item : value) EmitJson(emitter, item);
    emitter << YAML::EndSeq;
  } else if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    YamlNode plain;
    plain.kind = YamlNode::Kind::kScalar;
    plain.scalar = s;
    // Quoted whenever the reader (YamlToJson) would not read it back as this string.
    if (s.empty() || !YamlToJson(plain).is_string()) emitter << YAML::DoubleQuoted;
    emitter << s;
  } else if (value.is_boolean()) {
    emitter << value.get<bool>();
  } else if (value.is_number_integer()) {
    emitter << value.get<long long>();
  } else if (value.is_number()) {
    // The shortest text that reads back as the same double: 23.1, not
    // yaml-cpp's 17 digits (23.100000000000001).
    emitter << JsonText(nlohmann::json(value.get<double>()));
  } else {
    emitter << YAML::Null;
  }
}

}  // namespace

const YamlNode* YamlNode::Find(std::string_view key) const {
  for (const auto& [k, v] : entries) {
    if (k == key) return &v;
  }
  return nullptr;
}

const char* YamlNode::KindName() const {
  switch (kind) {
    case Kind::kNull: return "nothing";
    case Kind::kScalar: return "a single value";
    case Kind::kSequence: return "a list";
    case Kind::kMap: return "a map";
  }
  return "?";
}

std::optional<std::string> ReadUserFile(const std::string& path, const YamlLimits& limits,
                                        Diagnostics& diagnostics) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diagnostics.Error({path, 0, 0}, std::string("cannot read file: ") + std::strerror(errno));
    return std::nullopt;
  }
  // In chunks, up to one byte past the limit: a buffer of the limit's size
  // would be zero-filled for every file (16 MiB: tens of ms each).
  std::string text;
  char chunk[65536];
  while (text.size() <= limits.max_bytes && in.read(chunk, sizeof chunk).gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
  }
  if (text.size() > limits.max_bytes) {
    diagnostics.Error({path, 0, 0}, "file is larger than " +
                                        std::to_string(limits.max_bytes / (1024 * 1024)) +
                                        " MiB; refusing to parse it");
    return std::nullopt;
  }
  return text;
}

namespace {

// The shape of one document, from the parser's events: where it starts and
// whether it is empty (its whole content one null node).
class DocumentShape final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override {
    Seen(mark);
    ++nulls_;
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { Seen(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override { Seen(mark); }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    Seen(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    Seen(mark);
  }
  void OnMapEnd() override {}

  bool empty() const { return events_ == 1 && nulls_ == 1; }
  const YAML::Mark& start() const { return start_; }

 private:
  void Seen(const YAML::Mark& mark) {
    if (events_++ == 0) start_ = mark;
  }
  int events_ = 0;
  int nulls_ = 0;
  YAML::Mark start_;
};

// Whether the text is nothing but comments, blank lines and document markers.
bool OnlyCommentsAndMarkers(std::string_view text) {
  for (const std::string& line : Split(text, '\n')) {
    std::string_view t = Trim(line);
    if (!t.empty() && t[0] != '#' && t != "---" && t != "...") return false;
  }
  return true;
}

// The documents of a text, counted with the parser's own loop instead of
// YAML::LoadAll: yaml-cpp 0.7 (Debian 12) loops forever in LoadAll,
// allocating a null document per turn, on text it cannot parse, such as a
// line that starts with ',' (jbeder/yaml-cpp#1040, fixed upstream by
// stopping at the first empty root). Found by fuzz/role_file_fuzz.
struct DocumentCount {
  int count = 0;                       // 0, 1, or 2 for "more than one"
  std::optional<YAML::Mark> unreadable;  // an empty root where the text has content
  YAML::Mark second;                   // where a second document starts
};

DocumentCount CountDocuments(std::string_view text) {
  DocumentCount out;
  std::stringstream stream{std::string(text)};
  YAML::Parser parser(stream);
  DocumentShape first;
  if (!parser.HandleNextDocument(first)) return out;
  out.count = 1;
  if (first.empty() && !OnlyCommentsAndMarkers(text)) {
    out.unreadable = first.start();
    return out;
  }
  DocumentShape second;
  if (parser.HandleNextDocument(second)) {
    out.count = 2;
    out.second = second.start();
  }
  return out;
}

}  // namespace

std::optional<YamlNode> ParseYaml(std::string_view text, const std::string& file_name,
                                  const YamlLimits& limits, Diagnostics& diagnostics, bool past_duplicate_keys) {
  if (text.size() > limits.max_bytes) {
    diagnostics.Error({file_name, 0, 0}, "document is larger than the limit of " +
                                             std::to_string(limits.max_bytes) + " bytes");
    return std::nullopt;
  }
  if (!CheckEncoding(text, file_name, diagnostics)) return std::nullopt;

  std::vector<YAML::Node> documents;
  try {
    const DocumentCount count = CountDocuments(text);
    if (count.unreadable) {
      diagnostics.Error(LocationOf(file_name, *count.unreadable),
                        "YAML syntax error: cannot read this (a line that starts with ',' or another flow indicator?)");
      return std::nullopt;
    }
    if (count.count > 1) {
      diagnostics.Error(LocationOf(file_name, count.second),
                        "more than one YAML document ('---') in this file; expected exactly one");
      return std::nullopt;
    }
    if (count.count == 1) documents.push_back(YAML::Load(std::string(text)));
  } catch (const YAML::DeepRecursion& e) {
    diagnostics.Error(LocationOf(file_name, e.mark),
                      "nesting too deep (" + std::to_string(e.depth()) + " levels)");
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    if (std::optional<LineColumn> range = FindRangeInFlowList(text)) {
      diagnostics.Error({file_name, range->line, range->column},
                        "a host range inside a flow [ ] list or { } map must be quoted: write [\"gpu[01-04]\"], "
                        "or use block style (- gpu[01-04]), or a plain value (hosts: gpu[01-04],login01)");
      return std::nullopt;
    }
    diagnostics.Error(LocationOf(file_name, e.mark), "YAML syntax error: " + e.msg);
    return std::nullopt;
  }
  YamlNode root;
  root.location = {file_name, 1, 1};
  if (documents.empty()) return root;

  const int errors_before = diagnostics.error_count();
  Converter converter(file_name, limits, diagnostics);
  try {
    if (!converter.Convert(documents[0], 0, root)) return std::nullopt;
  } catch (const YAML::Exception& e) {
    diagnostics.Error(LocationOf(file_name, e.mark), "YAML error: " + e.msg);
    return std::nullopt;
  }
  const int recoverable = past_duplicate_keys ? converter.duplicate_keys() : 0;
  if (diagnostics.error_count() > errors_before + recoverable) return std::nullopt;
  return root;
}

std::optional<bool> ParseYamlBool(std::string_view text) {
  static const char* kTrue[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
  static const char* kFalse[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
  for (const char* t : kTrue) {
    if (text == t) return true;
  }
  for (const char* f : kFalse) {
    if (text == f) return false;
  }
  return std::nullopt;
}

nlohmann::json YamlToJson(const YamlNode& node) {
  switch (node.kind) {
    case YamlNode::Kind::kNull:
      return nullptr;
    case YamlNode::Kind::kScalar: {
      if (node.quoted) return node.scalar;
      const std::string& s = node.scalar;
      if (s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
      if (std::optional<bool> b = ParseYamlBool(s)) return *b;
      long long integer;
      if (IsInteger(s, integer)) return integer;
      double real;
      if (IsFloat(s, real)) return real;
      return s;
    }
    case YamlNode::Kind::kSequence: {
      nlohmann::json array = nlohmann::json::array();
      for (const YamlNode& item : node.items) array.push_back(YamlToJson(item));
      return array;
    }
    case YamlNode::Kind::kMap: {
      nlohmann::json object = nlohmann::json::object();
      for (const auto& [key, value] : node.entries) object[key] = YamlToJson(value);
      return object;
    }
  }
  return nullptr;
}

std::string JsonToYaml(const nlohmann::ordered_json& value) {
  YAML::Emitter emitter;
  emitter.SetIndent(2);
  EmitJson(emitter, value);
  return std::string(emitter.c_str()) + "\n";
}

}  // namespace clusterctl
