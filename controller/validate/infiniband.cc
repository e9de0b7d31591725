#include "controller/validate/infiniband.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <regex>

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

Result<std::vector<IbBandwidthRow>> ParseIbWriteBw(std::string_view text) {
  std::vector<IbBandwidthRow> rows;
  bool in_table = false;
  bool gbits = false;
  std::string failure;
  for (const std::string& raw : Split(text, '\n')) {
    std::string_view line = Trim(raw);
    if (line.find("#bytes") != std::string_view::npos && line.find("BW average") != std::string_view::npos) {
      in_table = true;
      gbits = line.find("Gb/sec") != std::string_view::npos;
      continue;
    }
    if (line.find("Couldn't") != std::string_view::npos || line.find("Unable") != std::string_view::npos ||
        line.find("ERROR") != std::string_view::npos || line.find("Failed") != std::string_view::npos) {
      if (failure.empty()) failure = std::string(line);
    }
    if (!in_table) continue;
    if (line.empty() || !std::isdigit(static_cast<unsigned char>(line[0]))) {
      in_table = false;
      continue;
    }
    std::vector<std::string> fields;
    for (const std::string& f : Split(std::regex_replace(std::string(line), std::regex("[ \t]+"), " "), ' ')) {
      if (!f.empty()) fields.push_back(f);
    }
    if (fields.size() < 4) return Status::InvalidArgument("ib_write_bw result row with " + std::to_string(fields.size()) + " fields: " + std::string(line));
    double scale = gbits ? 125.0 : 1.0;  // Gb/s -> MB/s
    rows.push_back({std::atoll(fields[0].c_str()), std::atoll(fields[1].c_str()), std::atof(fields[2].c_str()) * scale,
                    std::atof(fields[3].c_str()) * scale});
  }
  if (rows.empty()) {
    return Status::InvalidArgument("no ib_write_bw result rows" + (failure.empty() ? std::string() : ": " + failure));
  }
  return rows;
}

}  // namespace clusterctl
