#include "controller/cli/facts_command.h"

#include <doctest/doctest.h>

#include <sstream>

#include "common/json_text.h"

namespace clusterctl {
namespace {

nlohmann::json FullFacts() {
  return {
      {"os", {{"id", "debian"}, {"version_id", "12"}}},
      {"kernel", {{"release", "6.1.0-18-amd64"}, {"arch", "x86_64"}}},
      {"cpu", {{"cpus", 224}, {"sockets", 2}, {"cores_per_socket", 56}, {"threads_per_core", 2}, {"model", "Xeon 8480+"}}},
      {"memory", {{"total_mib", 2063360}}},
      {"pci", {{"gpu_count", 8}, {"gpu_model", "H100-SXM5-80GB"}, {"hca_count", 8},
               {"hcas", {{{"model", "ConnectX-7"}}}}}},
      {"nvidia_driver", "535.104.05"},
      {"nvidia", {{"simulated", true}, {"loaded_version", "550.144.03"}}},
      {"ib_ports", {{{"state", "ACTIVE"}, {"rate_gbps", 400.0}}, {{"state", "DOWN"}, {"rate_gbps", 400.0}}}},
  };
}

// Every field of `facts`, objects and the first element of lists included.
void CollectPointers(const nlohmann::json& value, const nlohmann::json::json_pointer& at,
                     std::vector<nlohmann::json::json_pointer>& out) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      out.push_back(at / key);
      CollectPointers(child, at / key, out);
    }
  } else if (value.is_array() && !value.empty()) {
    out.push_back(at / 0);
    CollectPointers(value[0], at / 0, out);
  }
}

}  // namespace

TEST_CASE("the facts table shows a node's escape sequences, never sends them (issue 31)") {
  nlohmann::json facts = FullFacts();
  facts["os"]["id"] = "debian\x1b]0;owned\x07";
  facts["kernel"]["release"] = "\x1b[2J6.1.0";
  std::ostringstream out;
  PrintFactsTable({{"node01", facts}}, out);
  CHECK(out.str().find('\x1b') == std::string::npos);
  CHECK(out.str().find("debian\\x1b]0;owned\\x07 12") != std::string::npos);
  CHECK(out.str().find("\\x1b[2J6.1.0 x86_64") != std::string::npos);
}

TEST_CASE("a facts row shows any facts: every field missing or of every type, nothing throws or aborts") {
  const std::vector<nlohmann::json> hostile = {nullptr, true, -1, 1.5, 18446744073709551615ULL, "many", "caf\xe9 \xff",
                                               nlohmann::json::array(), nlohmann::json::object(), {{1, 2}}, {{"x", {{"y", 1}}}}};
  const nlohmann::json full = FullFacts();
  std::vector<nlohmann::json::json_pointer> fields;
  CollectPointers(full, nlohmann::json::json_pointer(), fields);
  REQUIRE(fields.size() > 20);
  for (const auto& field : fields) {
    nlohmann::json missing = full;
    nlohmann::json& parent = missing[field.parent_pointer()];
    if (parent.is_object()) {
      parent.erase(field.back());
    } else {
      parent.erase(0);
    }
    CAPTURE(field.to_string());
    CHECK(FactsRow("n", missing).size() == 9);
    for (const nlohmann::json& value : hostile) {
      nlohmann::json facts = full;
      facts[field] = value;
      CAPTURE(JsonText(value));
      std::vector<std::string> row;
      CHECK_NOTHROW(row = FactsRow("n", facts));
      CHECK(row.size() == 9);
    }
  }
  for (const nlohmann::json& value : hostile) CHECK(FactsRow("n", value).size() == 9);
}

TEST_CASE("a facts row marks what it does not understand, and shows the rest") {
  nlohmann::json facts = FullFacts();
  facts["pci"]["gpu_count"] = "many";
  facts["cpu"]["sockets"] = "two";
  facts["os"] = "debian";
  facts["pci"]["hcas"] = nullptr;
  const std::vector<std::string> row = FactsRow("gpu01", facts);
  CHECK(row[1] == "\"debian\"?");
  CHECK(row[3] == "224 (\"two\"?s x 56c x 2t) Xeon 8480+");
  CHECK(row[5] == "\"many\"?");
  CHECK(row[7] == "8x ?");
  CHECK(row[8] == "1/2 active, 400 Gb/s");
}

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
  nlohmann::json facts = {{"nvidia_driver", "550.144.03"}, {"nvidia", {{"simulated", true}, {"loaded_version", "550.144.03"}}}};
  CHECK(FactsRow("gpu01", facts)[6] == "550.144.03 (simulated)");
  facts["nvidia"]["simulated"] = false;
  CHECK(FactsRow("gpu01", facts)[6] == "550.144.03");
  facts["nvidia_driver"] = nullptr;
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
