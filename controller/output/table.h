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
  // `max_width` > 0: no line is wider; the last column is narrowed first,
  // then the widest (none below its header's width or 8), and a cut cell
  // ends in "…".
  void Print(std::ostream& out, const std::string& indent = "", size_t max_width = 0) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

// Width of a UTF-8 string in terminal columns, counting each code point as one.
size_t DisplayWidth(const std::string& text);

// The width tables are fitted to on stdout: $COLUMNS when it is a number,
// else the terminal's width when stdout is one, else 0 (no limit: a pipe or
// a file gets every cell whole).
size_t StdoutColumns();

// `text` cut to `width` columns, its last one "…" when anything was cut.
std::string CutToWidth(const std::string& text, size_t width);

}  // namespace clusterctl
