// The resource kinds, registered in one place each: the kind's own file.
//
// A kind's file implements its check-and-apply function and registers it,
// with its parameter table, at start-up:
//
//   const ResourceKindRegistration kFileKind({"file", "summary", {P("path", T::kString, true), ...}, {}},
//                                            FileResource);
//
// Nothing else lists kinds: the role loader and the planner (controller)
// check parameters against the registered tables, the agent dispatches
// requests through them, and a unit test checks that docs/roles.md
// documents every registered kind. The files are linked as an object
// library (agent/CMakeLists.txt) so that no registration is dropped.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "agent/resources/resource.h"
#include "agent/resources/schema.h"

namespace clusterctl::agent {

using ResourceFunction = std::function<ResourceOutcome(const ResourceRequest&, ResourceHost&)>;

struct ResourceKind {
  resources::ResourceSpec spec;
  ResourceFunction run;  // null: the controller carries the kind out itself (reboot)
};

class ResourceKindRegistration {
 public:
  // REQUIRES: a kind of this name is not registered yet (aborts otherwise:
  // two files claiming one kind is a build mistake).
  ResourceKindRegistration(resources::ResourceSpec spec, ResourceFunction run);
};

// Null for a kind nobody registered.
const ResourceKind* FindResourceKind(const std::string& name);

}  // namespace clusterctl::agent
