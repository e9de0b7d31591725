// FactsCheck: the facts that roles, templates and views read, each with its
// type and the values it can take. A node's facts are its own word
// (docs/security.md): a document that lacks a required fact, holds one of
// another type (`pci.gpu_count: "many"`, a line break in `os.id`) or one of
// the right type but an impossible value (`memory.total_mib: 100`, a kernel
// named `6.1 x`, 10^6 GPUs) fails that node with the fact named and is kept
// out of every other host's plan, as if never gathered. One broken node
// never stops the deploy or drift check of the others, and a `when` that
// cannot be evaluated on facts that passed here is the roles' problem (a
// typo), which still ends the run before anything changes.
//
// The bounds are what lets a view or a step parameter take a fact as it is:
// a kernel name that passes is a package name suffix, an interface name is
// one Linux accepts, a count fits the files it is written into.
//
// A role or template that reads a new `facts.X`, or a view that reads a new
// fact, adds its row to the table in facts_check.cc (facts_check_test.cc
// fails until a role's or template's read is listed; the hostile-node suite
// tries every row's impossible values).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace clusterctl {

// What is wrong with `facts`, one line per fact ("pci.gpu_count is "many",
// not a count"); empty when the roles and views can read every fact they use.
std::vector<std::string> FactsProblems(const nlohmann::json& facts);

// The facts checked, as dotted paths ("pci.gpu_count"; an element of a
// list as "interfaces[].name").
std::vector<std::string> CheckedFactPaths();

// A value of the right JSON type for a checked fact, at the edge of what it
// may hold: `allowed` ones (the least and the most a count may be, the
// longest name) pass FactsProblems, the others (one past either end, a name
// with a space, a '~', shell syntax or bytes that are not UTF-8) fail it.
// Generated from the table's bounds, for the hostile-node suite.
struct FactValueCase {
  std::string path;  // as CheckedFactPaths names it
  nlohmann::json value;
  bool allowed;
  std::string what;  // "one past the most", "a space", ...
};
std::vector<FactValueCase> FactValueCases();

}  // namespace clusterctl
