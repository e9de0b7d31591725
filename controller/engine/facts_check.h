// FactsCheck: the facts that roles, templates and views read, each with its
// type. A node's facts are its own word (docs/security.md): a document that
// lacks a required fact, or holds one of another type (`pci.gpu_count:
// "many"`, a line break in `os.id`), fails that node with the fact named and
// is kept out of every other host's plan, as if never gathered. One broken
// node never stops the deploy or drift check of the others, and a `when`
// that cannot be evaluated on facts that passed here is the roles' problem
// (a typo), which still ends the run before anything changes.
//
// A role or template that reads a new `facts.X` adds its row to the table in
// facts_check.cc (facts_check_test.cc fails until it does), required unless
// every read is behind `defined(...)` (tests/unit/hostile_nodes_test.cc
// plans every role that reads facts for a node without each fact).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace clusterctl {

// What is wrong with `facts`, one line per fact ("pci.gpu_count is "many",
// not a count"); empty when the roles can read every fact they use.
std::vector<std::string> FactsProblems(const nlohmann::json& facts);

// The facts checked, as dotted paths ("pci.gpu_count").
std::vector<std::string> CheckedFactPaths();

}  // namespace clusterctl
