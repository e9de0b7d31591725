// The inventory loader on arbitrary text: it reports problems, never crashes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "inventory/loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  clusterctl::Diagnostics diagnostics;
  clusterctl::InventoryLoadOptions options;
  options.file_exists = [](const std::string&) { return true; };  // key files: not the filesystem's business here
  auto inventory = clusterctl::ParseInventory(std::string_view(reinterpret_cast<const char*>(data), size),
                                              "/fuzz/inventory.yaml", "/fuzz", diagnostics, options);
  (void)inventory;
  (void)diagnostics.ToString();
  return 0;
}
