// Diagnostics: problems found in a user's file, each with file:line:column.
//
// Loaders of user input (inventory, roles, templates) collect every problem
// they can find instead of stopping at the first, so an admin fixes a file in
// one pass. Lines and columns are 1-based; 0 means "unknown".
#pragma once

#include <string>
#include <vector>

namespace clusterctl {

struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  std::string ToString() const;  // "file:line:column", omitting unknown parts
};

struct Diagnostic {
  enum class Severity { kError, kWarning };
  Severity severity = Severity::kError;
  SourceLocation where;
  std::string message;

  // "inventory.yaml:12:5: error: unknown key 'adress' (did you mean 'address'?)"
  std::string ToString() const;
};

class Diagnostics {
 public:
  void Error(SourceLocation where, std::string message);
  void Warning(SourceLocation where, std::string message);
  void Append(const Diagnostics& other);

  bool has_errors() const { return error_count_ > 0; }
  int error_count() const { return error_count_; }
  const std::vector<Diagnostic>& items() const { return items_; }

  // All diagnostics sorted by file, line and column (stable).
  std::vector<Diagnostic> Sorted() const;
  // The same, one per line.
  std::string ToString() const;

 private:
  std::vector<Diagnostic> items_;
  int error_count_ = 0;
};

}  // namespace clusterctl
