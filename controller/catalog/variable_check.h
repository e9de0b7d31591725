// Checking the inventory's variables against the roles that use them, before
// anything is rendered or touched (deploy, plan and `inventory check`):
//  - declarations: every variable the inventory sets must be declared by a
//    role or validate (a suggestion when it is not), and have its
//    declaration's type, allowed values, syntax and bounds; a file it names
//    must exist beside the inventory (variable_spec.h);
//  - types: a variable whose role default is a number must be a number in
//    the inventory (an integer where the default is one), a string a
//    string, a list a list, a map a map, a boolean a boolean;
//  - formats: a value a template inserts must not break out of the file it
//    lands in, at its place there (file_format.h): a newline or a space in a
//    bare slurm.conf value, a quote in a quoted YAML string, SQL syntax in a
//    database name;
//  - syntaxes: a variable a role declares a syntax for (`syntax:` in the role
//    file, value_syntax.h) must have it: prometheus_listen is an address:port;
//  - names: a value that is a step parameter of a declared syntax (a package
//    or unit name, agent/resources/names.h) must have it: `-oDPkg::...` is
//    no package name;
//  - files: a value naming a file the controller sends to nodes (a
//    repository key, a bundle) must lie inside the inventory's directory
//    (inventory/inventory_file.h).
// Each problem is reported once, at the file:line where the value is written.
#pragma once

#include "common/diagnostics.h"
#include "controller/catalog/role.h"
#include "inventory/model.h"

namespace clusterctl {

// `catalog_complete`: the built-in roles were found, so a variable no role
// declares is unknown (without them, only the admin's roles are known).
void CheckInventoryVariables(const Catalog& catalog, const Inventory& inventory, Diagnostics& diagnostics,
                             bool catalog_complete = true);

}  // namespace clusterctl
