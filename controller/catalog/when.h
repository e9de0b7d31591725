// `when` conditions of role steps: a small expression language, parsed when
// the role is loaded (syntax errors are role errors, with file:line) and
// evaluated per host against the same context templates see.
//
//   expr   := or
//   or     := and ("or" and)*
//   and    := not ("and" not)*
//   not    := "not" not | cmp
//   cmp    := value (("==" | "!=" | "<" | "<=" | ">" | ">=" | "in") value)?
//   value  := number | 'string' | "string" | true | false | null
//           | name ("." name)*           e.g. facts.os.family, host.name
//           | "defined(" name ")"        whether a name resolves
//           | "(" expr ")" | "[" value ("," value)* "]"
//
// A bare value is tested for truthiness (null, false, 0, "", [] and {} are
// false). A name that resolves to nothing is an evaluation error (use
// defined(...)), so a typo never silently skips a step.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace clusterctl {

class WhenExpression {
 public:
  // Parses `text`; InvalidArgument naming the column on a syntax error.
  static Result<WhenExpression> Parse(std::string_view text);

  Result<bool> Evaluate(const nlohmann::json& context) const { return Evaluate(std::vector<const nlohmann::json*>{&context}); }
  // Names are looked up innermost (last) first, as in templates.
  Result<bool> Evaluate(const std::vector<const nlohmann::json*>& stack) const;
  const std::string& text() const { return text_; }
  // The top-level names it reads ("facts" of facts.pci.gpu_count), sorted, once each.
  std::vector<std::string> Names() const;

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace clusterctl
