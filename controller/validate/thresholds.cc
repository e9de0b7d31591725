#include "controller/validate/thresholds.h"

#include <regex>

#include "common/json_text.h"
#include "common/strings.h"
#include "controller/validate/check_result.h"

namespace clusterctl {
namespace {

std::string Described(const nlohmann::json& value) { return Printable(JsonText(value), 60); }

}  // namespace

Result<Thresholds> ReadThresholds(const nlohmann::json& vars) {
  Thresholds t;
  std::vector<std::string> problems;
  auto number = [&](const char* name, double minimum) -> std::optional<double> {
    if (!vars.contains(name)) return std::nullopt;
    const nlohmann::json& v = vars[name];
    if (!v.is_number() || v.get<double>() < minimum) {
      problems.push_back(std::string(name) + " must be a number >= " + FormatNumber(minimum) +
                         " (got " + Described(v) + ")");
      return std::nullopt;
    }
    return v.get<double>();
  };
  if (auto v = number("validate_clock_offset_max_ms", 0)) t.clock_offset_max_ms = *v;
  if (auto v = number("validate_gpus_expected", 0)) t.gpus_expected = static_cast<int>(*v);
  if (auto v = number("validate_gpu_aggregate_uncorrectable_max", 0)) t.gpu_aggregate_uncorrectable_max = static_cast<long long>(*v);
  if (auto v = number("validate_ib_rate_gbps", 1)) t.ib_rate_gbps = *v;
  if (auto v = number("validate_ib_write_bw_min_mbps", 0)) t.ib_write_bw_min_mbps = *v;
  if (auto v = number("validate_ib_write_bw_message_bytes", 1)) t.ib_write_bw_message_bytes = static_cast<long long>(*v);
  if (auto v = number("validate_nccl_busbw_min_gbps", 0)) t.nccl_busbw_min_gbps = *v;
  if (auto v = number("validate_nccl_small_message_max_us", 1)) t.nccl_small_message_max_us = *v;
  if (vars.contains("validate_gpu_xid_ignore")) {
    const nlohmann::json& v = vars["validate_gpu_xid_ignore"];
    bool ok = v.is_array();
    for (const auto& x : ok ? v : nlohmann::json::array()) {
      if (!x.is_number_integer()) ok = false;
      else t.gpu_xid_ignore.insert(x.get<int>());
    }
    if (!ok) problems.push_back("validate_gpu_xid_ignore must be a list of Xid numbers (got " + Described(v) + ")");
  }
  if (vars.contains("validate_ib_ports")) {
    static const std::regex kPort(R"(^[A-Za-z0-9_]+/\d+$)");
    const nlohmann::json& v = vars["validate_ib_ports"];
    bool ok = v.is_array();
    for (const auto& p : ok ? v : nlohmann::json::array()) {
      if (!p.is_string() || !std::regex_match(p.get<std::string>(), kPort)) ok = false;
      else t.ib_ports.push_back(p.get<std::string>());
    }
    if (!ok) problems.push_back("validate_ib_ports must be a list of DEVICE/PORT, e.g. [mlx5_0/1] (got " + Described(v) + ")");
  }
  for (const char* name : {"validate_nccl_tests_dir", "validate_nccl_max_bytes"}) {
    if (!vars.contains(name)) continue;
    const nlohmann::json& v = vars[name];
    static const std::regex kDir(R"(^/[A-Za-z0-9_./+-]*$)");
    static const std::regex kSize(R"(^[0-9]+[KMG]?$)");
    bool is_dir = std::string(name) == "validate_nccl_tests_dir";
    if (!v.is_string() || !std::regex_match(v.get<std::string>(), is_dir ? kDir : kSize)) {
      problems.push_back(std::string(name) + (is_dir ? " must be an absolute path" : " must be a size like 1G or 512M") +
                         " (got " + Described(v) + ")");
      continue;
    }
    (is_dir ? t.nccl_tests_dir : t.nccl_max_bytes) = v.get<std::string>();
  }
  if (!problems.empty()) return Status::InvalidArgument(Join(problems, "; "));
  return t;
}

double DefaultIbWriteBwFloorMbps(double rate_gbps) { return rate_gbps * 1000.0 / 8.0 * 0.88; }

double DefaultNodeBusbwFloorGbps(const std::string& gpu_name) {
  // all_reduce_perf bus bandwidth within one NVLink/NVSwitch node, at large
  // messages, as published for each generation, less a margin:
  // H100/H200 SXM ~450 GB/s, A100 SXM ~230 GB/s, V100 SXM2 ~130 GB/s.
  struct Model {
    const char* name;
    double floor;
  };
  static const Model kModels[] = {{"H200", 300}, {"H100", 300}, {"H800", 300}, {"GH200", 300}, {"B200", 500},
                                  {"A100", 180}, {"A800", 180}, {"V100", 100}};
  bool pcie = gpu_name.find("PCIe") != std::string::npos;
  for (const Model& m : kModels) {
    if (gpu_name.find(m.name) != std::string::npos) return pcie ? 10 : m.floor;
  }
  return 10;  // PCIe-attached GPUs: a conservative floor
}

double DefaultClusterBusbwFloorGbps(double node_ib_gbps) { return node_ib_gbps / 8.0 * 0.75; }

}  // namespace clusterctl
