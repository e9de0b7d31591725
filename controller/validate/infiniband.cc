#include "controller/validate/infiniband.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <regex>

#include "common/json_fields.h"
#include "common/strings.h"
#include "controller/validate/outline.h"

namespace clusterctl {
namespace {

double Leading(std::string_view text) { return std::atof(std::string(Trim(text)).c_str()); }

// "75", "0x4b"; -1 when absent.
int LidOf(std::string_view text) {
  std::string t(Trim(text));
  return t.empty() ? -1 : static_cast<int>(std::strtol(t.c_str(), nullptr, 0));
}

Status Unexpected(const char* tool, const OutlineNode& node) {
  return Status::InvalidArgument(std::string(tool) + " line " + std::to_string(node.line) +
                                 " is not part of an adapter's description: " + Printable(Trim(node.text), 200));
}

}  // namespace

std::string NormalizePortState(std::string_view state) {
  std::string s(Trim(state));
  if (size_t colon = s.find(": "); colon != std::string::npos && colon < 3) s = s.substr(colon + 2);  // "4: ACTIVE"
  if (size_t paren = s.find(" ("); paren != std::string::npos) s.resize(paren);                    // "PORT_ACTIVE (4)"
  if (s.rfind("PORT_", 0) == 0) s = s.substr(5);
  std::string out;
  for (char c : s) {
    if (c != '_' && c != ' ') out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

Result<std::vector<IbPortStatus>> ParseIbstat(std::string_view text, std::vector<IbDeviceStatus>* devices) {
  OutlineNode root = ParseOutline(text);
  std::vector<IbPortStatus> ports;
  static const std::regex kCa(R"(^CA '([^']+)'$)");
  static const std::regex kPort(R"(^Port (\d+)$)");
  for (const OutlineNode& ca : root.children) {
    std::smatch m;
    if (!std::regex_match(ca.key, m, kCa)) return Unexpected("ibstat", ca);
    std::string device = m[1];
    if (devices) {
      devices->push_back({device, ca.ValueAt("CA type"), ca.ValueAt("Firmware version"), "",
                          NormalizeGuid(ca.ValueAt("Node GUID")), NormalizeGuid(ca.ValueAt("System image GUID"))});
    }
    for (const OutlineNode& section : ca.children) {
      if (!std::regex_match(section.key, m, kPort)) continue;
      IbPortStatus port;
      port.device = device;
      port.port = std::atoi(m[1].str().c_str());
      port.state = NormalizePortState(section.ValueAt("State"));
      port.phys_state = NormalizePortState(section.ValueAt("Physical state"));
      port.rate_gbps = Leading(section.ValueAt("Rate"));
      port.link_layer = section.ValueAt("Link layer");
      port.port_guid = NormalizeGuid(section.ValueAt("Port GUID"));
      port.lid = LidOf(section.ValueAt("Base lid"));
      if (port.state.empty() || port.phys_state.empty()) {
        return Status::InvalidArgument("ibstat: " + device + " port " + std::to_string(port.port) +
                                       " has no State or Physical state (line " + std::to_string(section.line) + ")");
      }
      port.line = device + " port " + std::to_string(port.port) + ": State: " + section.ValueAt("State") +
                  ", Physical state: " + section.ValueAt("Physical state") + ", Rate: " + section.ValueAt("Rate") +
                  ", Link layer: " + port.link_layer;
      ports.push_back(std::move(port));
    }
  }
  if (ports.empty() && !root.children.empty()) return Unexpected("ibstat", root.children.front());
  return ports;
}

Result<std::vector<IbPortStatus>> ParseIbvDevinfo(std::string_view text, std::vector<IbDeviceStatus>* devices) {
  OutlineNode root = ParseOutline(text);
  std::vector<IbPortStatus> ports;
  for (const OutlineNode& hca : root.children) {
    if (hca.key != "hca_id") {
      if (Trim(hca.text) == "No IB devices found") continue;
      return Unexpected("ibv_devinfo", hca);
    }
    if (devices) {
      std::string part = hca.ValueAt("vendor_part_id");
      devices->push_back({hca.value, part.empty() ? "" : "vendor_part_id " + part, hca.ValueAt("fw_ver"),
                          hca.ValueAt("board_id"), NormalizeGuid(hca.ValueAt("node_guid")),
                          NormalizeGuid(hca.ValueAt("sys_image_guid"))});
    }
    const OutlineNode* device_ports = hca.Child("Device ports");
    if (device_ports == nullptr) continue;
    for (const OutlineNode& section : device_ports->children) {
      if (section.key != "port") continue;
      IbPortStatus port;
      port.device = hca.value;
      port.port = std::atoi(section.value.c_str());
      port.state = NormalizePortState(section.ValueAt("state"));
      port.phys_state = NormalizePortState(section.ValueAt("phys_state"));  // -v only
      port.link_layer = section.ValueAt("link_layer");
      port.lid = LidOf(section.ValueAt("port_lid"));
      // -v: "active_width: 4X (2)", "active_speed: 25.0 Gbps (32)".
      std::string width = section.ValueAt("active_width");
      std::string speed = section.ValueAt("active_speed");
      if (!width.empty() && !speed.empty()) port.rate_gbps = Leading(width) * Leading(speed);
      if (port.state.empty()) {
        return Status::InvalidArgument("ibv_devinfo: " + port.device + " port " + section.value + " has no state (line " +
                                       std::to_string(section.line) + ")");
      }
      port.line = port.device + " port " + section.value + ": state: " + section.ValueAt("state") +
                  ", link_layer: " + port.link_layer;
      ports.push_back(std::move(port));
    }
  }
  return ports;
}

namespace {

// "65536", "5000" (integer) or "24056.74" (decimal); false for anything else.
bool IsNumber(std::string_view field, bool integer) {
  if (field.empty() || field.size() > 24) return false;
  int dots = 0;
  for (char c : field) {
    if (c == '.') ++dots;
    else if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return integer ? dots == 0 : dots <= 1 && field != ".";
}

// A line's whitespace-separated fields, at most `limit` (one more than a
// table has columns, so a longer line is seen as longer).
std::vector<std::string_view> Fields(std::string_view line, size_t limit) {
  std::vector<std::string_view> fields;
  size_t at = 0;
  while (fields.size() < limit) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    if (at == line.size()) break;
    size_t end = line.find_first_of(" \t", at);
    if (end == std::string_view::npos) end = line.size();
    fields.push_back(line.substr(at, end - at));
    at = end;
  }
  return fields;
}

// Where a bandwidth table's numbers are, read from its header line
// ("#bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]
// CPU_Util[%]"): perftest adds columns with options (--cpu_util, and
// versions differ), so a row is read by the header's columns, not by a
// fixed count. "BW peak" and "BW average" are one column each.
struct BandwidthColumns {
  size_t count = 0;                      // the columns of every row
  size_t bytes = 0, iterations = 0, average = 0;
  std::optional<size_t> peak;            // absent in a table without it
  double scale = 1.0;                    // to MB/s, from the average column's unit
};

constexpr size_t kColumnsMax = 16;

std::optional<BandwidthColumns> HeaderColumns(std::string_view line) {
  std::vector<std::string_view> words = Fields(line, kColumnsMax * 2 + 1);
  if (words.size() > kColumnsMax * 2) return std::nullopt;
  std::vector<std::string> columns;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "BW" && i + 1 < words.size()) columns.push_back("BW " + std::string(words[++i]));
    else columns.emplace_back(words[i]);
  }
  if (columns.size() > kColumnsMax) return std::nullopt;
  BandwidthColumns c;
  c.count = columns.size();
  std::optional<size_t> bytes, iterations, average;
  for (size_t i = 0; i < columns.size(); ++i) {
    const std::string& name = columns[i];
    if (name == "#bytes") bytes = i;
    else if (name == "#iterations") iterations = i;
    else if (StartsWith(name, "BW peak")) c.peak = i;
    else if (StartsWith(name, "BW average")) average = i;
  }
  if (!bytes || !iterations || !average) return std::nullopt;
  c.bytes = *bytes;
  c.iterations = *iterations;
  c.average = *average;
  // MB/sec (10^6 bytes), MiB/sec (2^20 bytes, newer perftest), Gb/sec (--report_gbits).
  const std::string& unit = columns[c.average];
  c.scale = unit.find("Gb/sec") != std::string::npos ? 125.0 : unit.find("MiB/sec") != std::string::npos ? 1.048576 : 1.0;
  return c;
}

// A result row: as many fields as its header has columns, every one a
// number (#bytes and #iterations integers). perftest prints warnings
// ("Conflicting CPU frequency values detected: ...") between the header and
// its rows, so every line after a header is tried.
std::optional<IbBandwidthRow> ResultRow(std::string_view line, const BandwidthColumns& columns) {
  std::vector<std::string_view> fields = Fields(line, columns.count + 1);
  if (fields.size() != columns.count) return std::nullopt;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!IsNumber(fields[i], i == columns.bytes || i == columns.iterations)) return std::nullopt;
  }
  auto number = [&](size_t i) { return std::strtod(std::string(fields[i]).c_str(), nullptr); };
  return IbBandwidthRow{std::atoll(std::string(fields[columns.bytes]).c_str()),
                        std::atoll(std::string(fields[columns.iterations]).c_str()),
                        columns.peak ? number(*columns.peak) * columns.scale : 0.0, number(columns.average) * columns.scale};
}

}  // namespace

Result<std::vector<IbBandwidthRow>> ParseIbWriteBw(std::string_view text) {
  std::vector<IbBandwidthRow> rows;
  std::optional<BandwidthColumns> columns;  // the last header's; nullopt before a header
  std::string failure;
  for (const std::string& raw : Split(text, '\n')) {
    std::string_view line = Trim(raw);
    if (line.find("#bytes") != std::string_view::npos && line.find("BW average") != std::string_view::npos) {
      columns = HeaderColumns(line);
      continue;
    }
    if (line.find("Couldn't") != std::string_view::npos || line.find("Unable") != std::string_view::npos ||
        line.find("ERROR") != std::string_view::npos || line.find("Failed") != std::string_view::npos) {
      if (failure.empty()) failure = Printable(line, 200);
    }
    if (!columns) continue;
    if (std::optional<IbBandwidthRow> row = ResultRow(line, *columns)) rows.push_back(*row);
  }
  if (rows.empty()) {
    return Status::InvalidArgument("no ib_write_bw result rows" + (failure.empty() ? std::string() : ": " + failure));
  }
  return rows;
}

namespace {

double RateField(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? std::clamp(it->get<double>(), 0.0, 1e6) : 0.0;
}

}  // namespace

std::vector<IbPortStatus> SysfsIbPorts(const nlohmann::json& facts) {
  std::vector<IbPortStatus> ports;
  if (!facts.contains("ib_ports") || !facts["ib_ports"].is_array()) return ports;
  for (const auto& p : facts["ib_ports"]) {
    if (!p.is_object()) continue;
    IbPortStatus port;
    port.device = TextAt(p, "device");
    port.port = static_cast<int>(CountAt(p, "port", 1'000'000));
    port.state = NormalizePortState(TextAt(p, "state"));
    port.phys_state = NormalizePortState(TextAt(p, "phys_state"));
    port.rate_gbps = RateField(p, "rate_gbps");
    port.link_layer = TextAt(p, "link_layer");
    port.line = port.device + " port " + std::to_string(port.port) + ": state " + TextAt(p, "state") +
                ", phys_state " + TextAt(p, "phys_state") + ", rate " + TextAt(p, "rate_text") + ", link_layer " +
                port.link_layer + " (sysfs)";
    ports.push_back(std::move(port));
  }
  return ports;
}

}  // namespace clusterctl
