// A role file on arbitrary text, checked as the catalog checks each file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "controller/catalog/role.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  clusterctl::Diagnostics diagnostics;
  clusterctl::Catalog::Sources sources{{}, {CLUSTERCTL_SOURCE_DIR "/templates"}};
  auto role = clusterctl::Catalog::ParseRole(std::string_view(reinterpret_cast<const char*>(data), size),
                                             "/fuzz/roles/fuzz.yaml", "fuzz", sources, diagnostics);
  (void)role;
  return 0;
}
