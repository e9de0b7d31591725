#include "controller/validate/outline.h"

#include "common/strings.h"

namespace clusterctl {

const OutlineNode* OutlineNode::Child(std::string_view child_key) const {
  for (const OutlineNode& c : children) {
    if (c.key == child_key) return &c;
  }
  return nullptr;
}

const OutlineNode* OutlineNode::Find(std::string_view path) const {
  const OutlineNode* node = this;
  for (const std::string& part : Split(path, '/')) {
    node = node->Child(part);
    if (node == nullptr) return nullptr;
  }
  return node;
}

std::string OutlineNode::ValueAt(std::string_view path, std::string_view fallback) const {
  const OutlineNode* node = Find(path);
  return node != nullptr ? node->value : std::string(fallback);
}

namespace {

int IndentColumns(std::string_view line, size_t& first) {
  int columns = 0;
  first = 0;
  while (first < line.size() && (line[first] == ' ' || line[first] == '\t')) {
    columns = line[first] == '\t' ? (columns / 8 + 1) * 8 : columns + 1;
    ++first;
  }
  return columns;
}

}  // namespace

OutlineNode ParseOutline(std::string_view text) {
  OutlineNode root;
  // Stack of (indent, node) from the root to the most recent line.
  std::vector<std::pair<int, OutlineNode*>> open = {{-1, &root}};
  int number = 0;
  for (const std::string& raw : Split(text, '\n')) {
    ++number;
    std::string_view line = raw;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (Trim(line).empty()) continue;
    size_t first = 0;
    int indent = IndentColumns(line, first);
    std::string_view content = line.substr(first);
    OutlineNode node;
    node.line = number;
    node.text = std::string(line);
    size_t colon = std::string_view::npos;
    for (size_t i = 0; i < content.size(); ++i) {
      if (content[i] == ':' && (i + 1 == content.size() || content[i + 1] == ' ' || content[i + 1] == '\t')) {
        colon = i;
        break;
      }
    }
    if (colon == std::string_view::npos) {
      node.key = std::string(Trim(content));
    } else {
      node.key = std::string(Trim(content.substr(0, colon)));
      node.value = std::string(Trim(content.substr(colon + 1)));
      node.has_separator = true;
    }
    while (open.back().first >= indent) open.pop_back();
    OutlineNode* parent = open.back().second;
    parent->children.push_back(std::move(node));
    open.emplace_back(indent, &parent->children.back());
  }
  return root;
}

}  // namespace clusterctl
