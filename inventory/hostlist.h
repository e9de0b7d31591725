// Host range notation, as HPC admins write it (Slurm/pdsh/clush style).
//
//   gpu[001-004]          -> gpu001 gpu002 gpu003 gpu004   (zero padding kept)
//   gpu[01-02,07]         -> gpu01 gpu02 gpu07
//   rack[1-2]-n[01-02]    -> rack1-n01 rack1-n02 rack2-n01 rack2-n02
//   10.0.2.[1-128]        -> 10.0.2.1 ... 10.0.2.128       (same syntax for addresses)
//
// The last bracket varies fastest, so a name pattern and an address pattern
// with brackets in the same order pair up element by element.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace clusterctl {

// Largest number of names one pattern may expand to; protects against
// "gpu[0-999999999]" typos eating all memory.
inline constexpr size_t kMaxPatternExpansion = 100'000;

bool HasRangeSyntax(std::string_view pattern);

// Splits a comma-separated host list at commas outside brackets:
// "head01,gpu[01-04,09]" -> {"head01", "gpu[01-04,09]"}. Empty items are kept
// (so "a,,b" can be reported), surrounding spaces trimmed.
std::vector<std::string> SplitHostList(std::string_view list);

// Expands a pattern; a pattern without brackets expands to itself.
// InvalidArgument with a message naming the column for malformed patterns
// (unclosed or nested brackets, reversed or empty ranges, non-digits).
Result<std::vector<std::string>> ExpandHostPattern(std::string_view pattern,
                                                   size_t max_count = kMaxPatternExpansion);

// The inverse, for output: {"node03","login","node02","node04"} ->
// {"login", "node[02-04]"}. Duplicates are dropped; patterns come out sorted.
std::vector<std::string> CollapseHostPatterns(std::vector<std::string> names);

// The same joined with commas: "login,node[02-04]".
std::string CollapseHostList(std::vector<std::string> names);

}  // namespace clusterctl
