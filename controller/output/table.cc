#include "controller/output/table.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "controller/output/terminal_text.h"

namespace clusterctl {

size_t DisplayWidth(const std::string& text) {
  size_t width = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++width;
  }
  return width;
}

size_t StdoutColumns() {
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && value > 0) return static_cast<size_t>(value);
  }
  struct winsize size {};
  if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 0;
}

std::string CutToWidth(const std::string& text, size_t width) {
  if (DisplayWidth(text) <= width) return text;
  if (width == 0) return "";
  std::string cut;
  size_t columns = 0;
  for (unsigned char c : text) {
    const bool starts_character = (c & 0xC0) != 0x80;
    if (starts_character && ++columns == width) break;
    cut += static_cast<char>(c);
  }
  return cut + "\u2026";
}

namespace {

// The narrowest a column is cut to, its header included ("VALID…"): with
// 7 columns a 60-column terminal leaves under 7 for each.
constexpr size_t kNarrowest = 6;

// Narrows the last column (the free text: a detail, a description) first,
// then the widest of the others, one column at a time, until a line of the
// table fits `max_width` or no column can give more.
void NarrowToFit(std::vector<size_t>& widths, size_t fixed, size_t max_width) {
  auto total = [&] {
    size_t sum = fixed;
    for (size_t w : widths) sum += w;
    return sum + 2 * (widths.size() - 1);
  };
  const size_t last = widths.size() - 1;
  if (total() > max_width && widths[last] > kNarrowest) {
    widths[last] = std::max(kNarrowest, widths[last] - std::min(widths[last], total() - max_width));
  }
  while (total() > max_width) {
    size_t widest = widths.size();
    for (size_t i = 0; i < widths.size(); ++i) {
      if (widths[i] > kNarrowest && (widest == widths.size() || widths[i] > widths[widest])) widest = i;
    }
    if (widest == widths.size()) return;
    --widths[widest];
  }
}

}  // namespace

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  for (std::string& cell : cells) cell = TerminalText(cell, TextShape::kOneLine);
  rows_.push_back(std::move(cells));
}

void TextTable::Print(std::ostream& out, const std::string& indent, size_t max_width) const {
  std::vector<size_t> widths(headers_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], DisplayWidth(row[i]));
  };
  measure(headers_);
  for (const auto& row : rows_) measure(row);
  if (max_width > 0 && !widths.empty()) NarrowToFit(widths, DisplayWidth(indent), max_width);
  auto print = [&](const std::vector<std::string>& row) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i) {
      const std::string cell = CutToWidth(row[i], widths[i]);
      line += cell;
      if (i + 1 < row.size()) line += std::string(widths[i] - DisplayWidth(cell) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  print(headers_);
  for (const auto& row : rows_) print(row);
}

}  // namespace clusterctl
