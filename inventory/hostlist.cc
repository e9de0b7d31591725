#include "inventory/hostlist.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "common/strings.h"

namespace clusterctl {
namespace {

struct Segment {
  std::string literal;               // text before the bracket (or the tail)
  std::vector<std::string> choices;  // empty for the tail segment
};

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string Pad(unsigned long long value, size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

Status BracketError(std::string_view pattern, size_t column, const std::string& what) {
  return Status::InvalidArgument("malformed range in '" + std::string(pattern) + "' at column " +
                                 std::to_string(column + 1) + ": " + what);
}

// Parses "001-004,010" into its choices.
Status ParseBracket(std::string_view pattern, size_t open, std::string_view body,
                    size_t max_count, std::vector<std::string>& out) {
  if (body.empty()) return BracketError(pattern, open, "empty brackets");
  size_t start = 0;
  while (start <= body.size()) {
    size_t comma = body.find(',', start);
    std::string_view item = body.substr(start, comma == std::string_view::npos ? body.npos : comma - start);
    size_t dash = item.find('-');
    std::string_view first = item.substr(0, dash);
    std::string_view last = dash == std::string_view::npos ? first : item.substr(dash + 1);
    if (!AllDigits(first) || !AllDigits(last) || first.size() > 9 || last.size() > 9) {
      return BracketError(pattern, open, "expected N or N-M with digits, got '" + std::string(item) + "'");
    }
    unsigned long long low = std::stoull(std::string(first));
    unsigned long long high = std::stoull(std::string(last));
    if (high < low) {
      return BracketError(pattern, open, "range '" + std::string(item) + "' runs backwards");
    }
    if (high - low + 1 + out.size() > max_count) {
      return BracketError(pattern, open, "expands to more than " + std::to_string(max_count) + " names");
    }
    size_t width = first.size() > 1 && first[0] == '0' ? first.size() : 0;
    for (unsigned long long v = low; v <= high; ++v) out.push_back(Pad(v, width));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return Status::Ok();
}

}  // namespace

bool HasRangeSyntax(std::string_view pattern) {
  return pattern.find('[') != std::string_view::npos || pattern.find(']') != std::string_view::npos;
}

std::vector<std::string> SplitHostList(std::string_view list) {
  std::vector<std::string> items;
  std::string current;
  int depth = 0;
  for (char c : list) {
    if (c == '[') ++depth;
    if (c == ']' && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      items.emplace_back(Trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  items.emplace_back(Trim(current));
  return items;
}

Result<std::vector<std::string>> ExpandHostPattern(std::string_view pattern, size_t max_count) {
  std::vector<Segment> segments;
  size_t pos = 0;
  while (true) {
    size_t open = pattern.find_first_of("[]", pos);
    if (open == std::string_view::npos) {
      segments.push_back({std::string(pattern.substr(pos)), {}});
      break;
    }
    if (pattern[open] == ']') return BracketError(pattern, open, "']' without '['");
    size_t close = pattern.find_first_of("[]", open + 1);
    if (close == std::string_view::npos) return BracketError(pattern, open, "'[' is never closed");
    if (pattern[close] == '[') return BracketError(pattern, close, "nested '['");
    Segment segment{std::string(pattern.substr(pos, open - pos)), {}};
    CLUSTERCTL_RETURN_IF_ERROR(
        ParseBracket(pattern, open, pattern.substr(open + 1, close - open - 1), max_count, segment.choices));
    segments.push_back(std::move(segment));
    pos = close + 1;
  }

  std::vector<std::string> names = {""};
  for (const Segment& segment : segments) {
    if (segment.choices.empty()) {
      for (std::string& name : names) name += segment.literal;
      continue;
    }
    if (names.size() * segment.choices.size() > max_count) {
      return Status::InvalidArgument("'" + std::string(pattern) + "' expands to more than " +
                                     std::to_string(max_count) + " names");
    }
    std::vector<std::string> next;
    next.reserve(names.size() * segment.choices.size());
    for (const std::string& name : names) {
      for (const std::string& choice : segment.choices) next.push_back(name + segment.literal + choice);
    }
    names = std::move(next);
  }
  return names;
}

std::vector<std::string> CollapseHostPatterns(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());

  struct Parts {
    std::string prefix, digits, suffix;
  };
  auto split = [](const std::string& name) -> Parts {
    size_t end = name.find_last_of("0123456789");
    if (end == std::string::npos) return {name, "", ""};
    size_t begin = end;
    while (begin > 0 && name[begin - 1] >= '0' && name[begin - 1] <= '9') --begin;
    return {name.substr(0, begin), name.substr(begin, end - begin + 1), name.substr(end + 1)};
  };

  // Widths used by zero-padded numbers, per (prefix, suffix): a number like
  // "10" joins the padded-to-2 group when one exists.
  std::set<std::tuple<std::string, std::string, size_t>> padded_widths;
  std::vector<Parts> parts;
  for (const std::string& name : names) {
    parts.push_back(split(name));
    const Parts& p = parts.back();
    if (p.digits.size() > 1 && p.digits[0] == '0') padded_widths.insert({p.prefix, p.suffix, p.digits.size()});
  }

  // key: prefix, suffix, width (0 = unpadded) -> numbers
  std::map<std::tuple<std::string, std::string, size_t>, std::vector<unsigned long long>> groups;
  std::vector<std::string> plain;
  for (const Parts& p : parts) {
    if (p.digits.empty() || p.digits.size() > 18) {
      plain.push_back(p.prefix + p.digits + p.suffix);
      continue;
    }
    size_t width = 0;
    if (p.digits.size() > 1 && p.digits[0] == '0') {
      width = p.digits.size();
    } else if (padded_widths.count({p.prefix, p.suffix, p.digits.size()})) {
      width = p.digits.size();
    }
    groups[{p.prefix, p.suffix, width}].push_back(std::stoull(p.digits));
  }

  std::vector<std::pair<std::string, std::string>> rendered;  // sort key, text
  for (const std::string& name : plain) rendered.emplace_back(name, name);
  for (auto& [key, numbers] : groups) {
    const auto& [prefix, suffix, width] = key;
    std::sort(numbers.begin(), numbers.end());
    if (numbers.size() == 1) {
      std::string name = prefix + Pad(numbers[0], width) + suffix;
      rendered.emplace_back(name, name);
      continue;
    }
    std::string body;
    for (size_t i = 0; i < numbers.size();) {
      size_t j = i;
      while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
      if (!body.empty()) body += ",";
      body += Pad(numbers[i], width);
      if (j > i) body += "-" + Pad(numbers[j], width);
      i = j + 1;
    }
    rendered.emplace_back(prefix + Pad(numbers[0], width) + suffix, prefix + "[" + body + "]" + suffix);
  }
  std::sort(rendered.begin(), rendered.end());
  std::vector<std::string> out;
  for (auto& [key, text] : rendered) out.push_back(std::move(text));
  return out;
}

std::string CollapseHostList(std::vector<std::string> names) {
  std::string out;
  for (const std::string& pattern : CollapseHostPatterns(std::move(names))) {
    if (!out.empty()) out += ",";
    out += pattern;
  }
  return out;
}

}  // namespace clusterctl
