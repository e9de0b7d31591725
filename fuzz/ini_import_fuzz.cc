// The Ansible/DeepOps INI importer on arbitrary text; what it imports must
// render (the YAML it would write).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "inventory/ini_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  clusterctl::Diagnostics diagnostics;
  clusterctl::IniImportOptions options;
  options.cluster_name = "fuzz";
  auto imported = clusterctl::ImportAnsibleIni(std::string_view(reinterpret_cast<const char*>(data), size),
                                               "hosts.ini", options, diagnostics);
  if (imported) (void)clusterctl::RenderImport(*imported, "hosts.ini");
  return 0;
}
