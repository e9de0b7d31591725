// Plain-text tables for terminal output: columns padded to their widest cell.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace clusterctl {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> headers) : headers_(std::move(headers)) {}

  // Cells are shown as TerminalText one-liners (text from nodes fills them).
  void AddRow(std::vector<std::string> cells);
  bool empty() const { return rows_.empty(); }
  // Writes the header, then the rows; the last column is never padded.
  void Print(std::ostream& out, const std::string& indent = "") const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

// Width of a UTF-8 string in terminal columns, counting each code point as one.
size_t DisplayWidth(const std::string& text);

}  // namespace clusterctl
