// Outline: the indented "key: value" text that nvidia-smi -q, ibstat and
// ibv_devinfo print, as a tree. A line's children are the lines after it
// indented deeper; tabs count to the next multiple of 8 columns.
//
// The key/value separator is the first ':' followed by whitespace or the end
// of the line, so "GPU 00000000:DD:00.0" is a key without a value while
// "Bus Id : 00000000:DD:00.0" is a key with one. Keys and values are trimmed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace clusterctl {

struct OutlineNode {
  std::string key;
  std::string value;
  bool has_separator = false;  // the line had "key:" (possibly with an empty value)
  int line = 0;                // 1-based line in the text
  std::string text;            // the line as printed (for evidence)
  std::vector<OutlineNode> children;

  // The first child with exactly this key, or nullptr.
  const OutlineNode* Child(std::string_view child_key) const;
  // Follows "a/b/c" through Child(); nullptr when any part is missing.
  const OutlineNode* Find(std::string_view path) const;
  // The value at `path`, or `fallback` when there is none.
  std::string ValueAt(std::string_view path, std::string_view fallback = "") const;
};

// Returns a root node (key "") whose children are the top-level lines.
OutlineNode ParseOutline(std::string_view text);

}  // namespace clusterctl
