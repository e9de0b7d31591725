#include "controller/cli/facts_command.h"

#include <doctest/doctest.h>

namespace clusterctl {

TEST_CASE("a facts row summarises OS, CPUs, memory, GPUs, HCAs and IB ports") {
  nlohmann::json facts = {
      {"os", {{"id", "debian"}, {"version_id", "12"}}},
      {"kernel", {{"release", "6.1.0-18-amd64"}, {"arch", "x86_64"}}},
      {"cpu", {{"cpus", 224}, {"sockets", 2}, {"cores_per_socket", 56}, {"threads_per_core", 2}, {"model", "Xeon 8480+"}}},
      {"memory", {{"total_mib", 2063360}}},
      {"pci", {{"gpu_count", 8}, {"gpu_model", "H100-SXM5-80GB"}, {"hca_count", 8},
               {"hcas", {{{"model", "ConnectX-7"}}}}}},
      {"nvidia_driver", "535.104.05"},
      {"ib_ports", {{{"state", "ACTIVE"}, {"rate_gbps", 400.0}}, {{"state", "DOWN"}, {"rate_gbps", 400.0}}}},
  };
  std::vector<std::string> row = FactsRow("gpu01", facts);
  CHECK(row == std::vector<std::string>{"gpu01", "debian 12", "6.1.0-18-amd64 x86_64", "224 (2s x 56c x 2t) Xeon 8480+",
                                        "2015.0 GiB", "8x H100-SXM5-80GB", "535.104.05", "8x ConnectX-7",
                                        "1/2 active, 400 Gb/s"});
}

TEST_CASE("a facts row marks the testbed's simulated driver") {
  nlohmann::json facts = {{"nvidia_driver", nullptr}, {"nvidia", {{"simulated", true}, {"loaded_version", "550.144.03"}}}};
  CHECK(FactsRow("gpu01", facts)[6] == "550.144.03 (simulated)");
  facts["nvidia"]["simulated"] = false;
  CHECK(FactsRow("gpu01", facts)[6] == "-");
}

TEST_CASE("a facts row for a node without GPUs or IB shows dashes, and '?' for what is missing") {
  std::vector<std::string> row = FactsRow("head", {{"pci", {{"gpu_count", 0}, {"hca_count", 0}}}, {"nvidia_driver", nullptr}});
  CHECK(row[1] == "?");
  CHECK(row[5] == "-");
  CHECK(row[6] == "-");
  CHECK(row[8] == "-");
}

}  // namespace clusterctl
