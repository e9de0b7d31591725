#include "controller/catalog/when.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <vector>

#include "common/json_text.h"
#include "controller/catalog/template.h"

namespace clusterctl {

struct WhenExpression::Node {
  enum Kind { kLiteral, kName, kDefined, kList, kNot, kAnd, kOr, kCompare };
  Kind kind = kLiteral;
  nlohmann::json literal;
  std::string name;  // kName, kDefined; the operator for kCompare
  std::vector<std::shared_ptr<const Node>> children;
};

namespace {

using NodePtr = std::shared_ptr<const WhenExpression::Node>;
using Node = WhenExpression::Node;

struct Token {
  enum Kind { kEnd, kNumber, kString, kName, kSymbol } kind = kEnd;
  std::string text;
  size_t column = 0;  // 1-based
};

Result<std::vector<Token>> Tokenize(std::string_view s) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.column = i + 1;
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '-' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t j = i + 1;
      while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
      t.kind = Token::kNumber;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (c == '\'' || c == '"') {
      size_t j = s.find(c, i + 1);
      if (j == std::string_view::npos) {
        return Status::InvalidArgument("unterminated string at column " + std::to_string(i + 1));
      }
      t.kind = Token::kString;
      t.text = std::string(s.substr(i + 1, j - i - 1));
      i = j + 1;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i + 1;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' || s[j] == '.' || s[j] == '-')) ++j;
      t.kind = Token::kName;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else {
      static const char* kSymbols[] = {"==", "!=", "<=", ">=", "<", ">", "(", ")", "[", "]", ","};
      bool matched = false;
      for (const char* symbol : kSymbols) {
        std::string_view sv(symbol);
        if (s.substr(i, sv.size()) == sv) {
          t.kind = Token::kSymbol;
          t.text = symbol;
          i += sv.size();
          matched = true;
          break;
        }
      }
      if (!matched) return Status::InvalidArgument("unexpected '" + std::string(1, c) + "' at column " + std::to_string(i + 1));
    }
    tokens.push_back(t);
  }
  tokens.push_back({Token::kEnd, "", s.size() + 1});
  return tokens;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Result<NodePtr> ParseAll() {
    auto expr = Or();
    if (!expr.ok()) return expr;
    if (Peek().kind != Token::kEnd) return Error("unexpected '" + Peek().text + "'");
    return expr;
  }

 private:
  const Token& Peek() const { return tokens_[pos_]; }
  bool IsWord(const char* word) const { return Peek().kind == Token::kName && Peek().text == word; }
  bool IsSymbol(const char* symbol) const { return Peek().kind == Token::kSymbol && Peek().text == symbol; }
  Status Error(const std::string& what) const {
    return Status::InvalidArgument(what + " at column " + std::to_string(Peek().column));
  }

  // Parentheses, lists and `not` nest by recursion: bounded, so a hostile
  // expression is an error, not a stack overflow (a fuzz find).
  static constexpr int kMaxDepth = 64;
  struct Nesting {
    int& depth;
    explicit Nesting(int& d) : depth(++d) {}
    ~Nesting() { --depth; }
  };

  Result<NodePtr> Or() {
    Nesting nested(depth_);
    if (depth_ > kMaxDepth) return Error("nested deeper than " + std::to_string(kMaxDepth) + " levels");
    auto left = And();
    if (!left.ok()) return left;
    while (IsWord("or")) {
      ++pos_;
      auto right = And();
      if (!right.ok()) return right;
      left = NodePtr(new Node{Node::kOr, nullptr, "", {*left, *right}});
    }
    return left;
  }

  Result<NodePtr> And() {
    auto left = Not();
    if (!left.ok()) return left;
    while (IsWord("and")) {
      ++pos_;
      auto right = Not();
      if (!right.ok()) return right;
      left = NodePtr(new Node{Node::kAnd, nullptr, "", {*left, *right}});
    }
    return left;
  }

  Result<NodePtr> Not() {
    if (IsWord("not")) {
      ++pos_;
      Nesting nested(depth_);
      if (depth_ > kMaxDepth) return Error("nested deeper than " + std::to_string(kMaxDepth) + " levels");
      auto inner = Not();
      if (!inner.ok()) return inner;
      return NodePtr(new Node{Node::kNot, nullptr, "", {*inner}});
    }
    return Compare();
  }

  Result<NodePtr> Compare() {
    auto left = Value();
    if (!left.ok()) return left;
    static const char* kOperators[] = {"==", "!=", "<=", ">=", "<", ">"};
    for (const char* op : kOperators) {
      if (IsSymbol(op)) {
        ++pos_;
        auto right = Value();
        if (!right.ok()) return right;
        return NodePtr(new Node{Node::kCompare, nullptr, op, {*left, *right}});
      }
    }
    if (IsWord("in")) {
      ++pos_;
      auto right = Value();
      if (!right.ok()) return right;
      return NodePtr(new Node{Node::kCompare, nullptr, "in", {*left, *right}});
    }
    return left;
  }

  Result<NodePtr> Value() {
    const Token t = Peek();
    switch (t.kind) {
      case Token::kNumber:
        ++pos_;
        return NodePtr(new Node{Node::kLiteral, nlohmann::json::parse(t.text, nullptr, false), "", {}});
      case Token::kString:
        ++pos_;
        return NodePtr(new Node{Node::kLiteral, t.text, "", {}});
      case Token::kName:
        if (t.text == "true" || t.text == "false") {
          ++pos_;
          return NodePtr(new Node{Node::kLiteral, t.text == "true", "", {}});
        }
        if (t.text == "null") {
          ++pos_;
          return NodePtr(new Node{Node::kLiteral, nullptr, "", {}});
        }
        if (t.text == "and" || t.text == "or" || t.text == "not" || t.text == "in") return Error("expected a value");
        if (t.text == "defined") {
          ++pos_;
          if (!IsSymbol("(")) return Error("expected '(' after defined");
          ++pos_;
          if (Peek().kind != Token::kName) return Error("expected a name in defined(...)");
          std::string name = Peek().text;
          ++pos_;
          if (!IsSymbol(")")) return Error("expected ')'");
          ++pos_;
          return NodePtr(new Node{Node::kDefined, nullptr, name, {}});
        }
        ++pos_;
        return NodePtr(new Node{Node::kName, nullptr, t.text, {}});
      case Token::kSymbol:
        if (t.text == "(") {
          ++pos_;
          auto inner = Or();
          if (!inner.ok()) return inner;
          if (!IsSymbol(")")) return Error("expected ')'");
          ++pos_;
          return inner;
        }
        if (t.text == "[") {
          ++pos_;
          auto list = std::make_shared<Node>(Node{Node::kList, nullptr, "", {}});
          while (!IsSymbol("]")) {
            auto item = Value();
            if (!item.ok()) return item;
            list->children.push_back(*item);
            if (IsSymbol(",")) {
              ++pos_;
            } else if (!IsSymbol("]")) {
              return Error("expected ',' or ']'");
            }
          }
          ++pos_;
          return NodePtr(list);
        }
        return Error("unexpected '" + t.text + "'");
      case Token::kEnd:
        return Error("unexpected end of expression");
    }
    return Error("unexpected token");
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
};

bool Truthy(const nlohmann::json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0;
  if (v.is_string()) return !v.get_ref<const std::string&>().empty();
  return !v.empty();
}

Result<nlohmann::json> Eval(const Node& node, const std::vector<const nlohmann::json*>& context) {
  switch (node.kind) {
    case Node::kLiteral: return node.literal;
    case Node::kName: {
      const nlohmann::json* value = LookupName(context, node.name);
      if (!value) return Status::NotFound("undefined name '" + node.name + "' (test it with defined(" + node.name + "))");
      return *value;
    }
    case Node::kDefined: return nlohmann::json(LookupName(context, node.name) != nullptr);
    case Node::kList: {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& child : node.children) {
        auto v = Eval(*child, context);
        if (!v.ok()) return v;
        list.push_back(*v);
      }
      return list;
    }
    case Node::kNot: {
      auto v = Eval(*node.children[0], context);
      if (!v.ok()) return v;
      return nlohmann::json(!Truthy(*v));
    }
    case Node::kAnd:
    case Node::kOr: {
      auto left = Eval(*node.children[0], context);
      if (!left.ok()) return left;
      bool l = Truthy(*left);
      if (node.kind == Node::kAnd && !l) return nlohmann::json(false);
      if (node.kind == Node::kOr && l) return nlohmann::json(true);
      auto right = Eval(*node.children[1], context);
      if (!right.ok()) return right;
      return nlohmann::json(Truthy(*right));
    }
    case Node::kCompare: {
      auto left = Eval(*node.children[0], context);
      if (!left.ok()) return left;
      auto right = Eval(*node.children[1], context);
      if (!right.ok()) return right;
      const std::string& op = node.name;
      if (op == "==") return nlohmann::json(*left == *right);
      if (op == "!=") return nlohmann::json(*left != *right);
      if (op == "in") {
        if (right->is_array()) return nlohmann::json(std::find(right->begin(), right->end(), *left) != right->end());
        if (right->is_string() && left->is_string()) {
          return nlohmann::json(right->get<std::string>().find(left->get<std::string>()) != std::string::npos);
        }
        return Status::InvalidArgument("'in' needs a list or a string on its right");
      }
      if (left->is_number() && right->is_number()) {
        double a = left->get<double>(), b = right->get<double>();
        return nlohmann::json(op == "<" ? a < b : op == "<=" ? a <= b : op == ">" ? a > b : a >= b);
      }
      if (left->is_string() && right->is_string()) {
        return nlohmann::json(op == "<" ? *left < *right : op == "<=" ? *left <= *right : op == ">" ? *left > *right : *left >= *right);
      }
      return Status::InvalidArgument("cannot compare " + JsonText(*left) + " " + op + " " + JsonText(*right));
    }
  }
  return Status::Internal("bad expression");
}

}  // namespace

Result<WhenExpression> WhenExpression::Parse(std::string_view text) {
  auto tokens = Tokenize(text);
  if (!tokens.ok()) return tokens.status();
  Parser parser(std::move(tokens).value());
  auto root = parser.ParseAll();
  if (!root.ok()) return root.status();
  WhenExpression expression;
  expression.text_ = std::string(text);
  expression.root_ = *root;
  return expression;
}

Result<bool> WhenExpression::Evaluate(const std::vector<const nlohmann::json*>& stack) const {
  auto value = Eval(*root_, stack);
  if (!value.ok()) return value.status();
  return Truthy(*value);
}

namespace {

void CollectNames(const WhenExpression::Node& node, std::set<std::string>& names) {
  if ((node.kind == WhenExpression::Node::kName || node.kind == WhenExpression::Node::kDefined) && !node.name.empty()) {
    names.insert(node.name.substr(0, node.name.find('.')));
  }
  for (const auto& child : node.children) CollectNames(*child, names);
}

}  // namespace

std::vector<std::string> WhenExpression::Names() const {
  std::set<std::string> names;
  if (root_) CollectNames(*root_, names);
  return {names.begin(), names.end()};
}

}  // namespace clusterctl
