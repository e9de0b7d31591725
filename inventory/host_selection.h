// `--limit PATTERN`: choosing hosts of an inventory.
//
// PATTERN is a comma-separated list of terms (commas inside brackets belong
// to a range). A term is a host name, a group name, a range (gpu[01-08]), or a
// glob (gpu0*, node?); a term prefixed with '!' excludes what it names. The
// selection is the union of the positive terms (every host when there are
// none) minus the union of the exclusions, in inventory order. A term that
// names nothing is an error, so a typo never silently selects too little.
#pragma once

#include <string_view>
#include <vector>

#include "common/status.h"
#include "inventory/model.h"

namespace clusterctl {

Result<std::vector<const Host*>> SelectHosts(const Inventory& inventory, std::string_view pattern);

}  // namespace clusterctl
