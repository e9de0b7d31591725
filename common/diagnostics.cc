#include "common/diagnostics.h"

#include <algorithm>
#include <tuple>

namespace clusterctl {

std::string SourceLocation::ToString() const {
  std::string out = file.empty() ? "<input>" : file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  return out;
}

std::string Diagnostic::ToString() const {
  const char* label = severity == Severity::kError ? "error" : "warning";
  return where.ToString() + ": " + label + ": " + message;
}

void Diagnostics::Error(SourceLocation where, std::string message) {
  items_.push_back({Diagnostic::Severity::kError, std::move(where), std::move(message)});
  ++error_count_;
}

void Diagnostics::Warning(SourceLocation where, std::string message) {
  items_.push_back({Diagnostic::Severity::kWarning, std::move(where), std::move(message)});
}

void Diagnostics::Append(const Diagnostics& other) {
  for (const Diagnostic& d : other.items_) items_.push_back(d);
  error_count_ += other.error_count_;
}

std::vector<Diagnostic> Diagnostics::Sorted() const {
  std::vector<Diagnostic> sorted = items_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.where.file, a.where.line, a.where.column) < std::tie(b.where.file, b.where.line, b.where.column);
  });
  return sorted;
}

std::string Diagnostics::ToString() const {
  std::string out;
  for (const Diagnostic& d : Sorted()) out += d.ToString() + "\n";
  return out;
}

}  // namespace clusterctl
