#include "controller/validate/nvidia_smi.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <regex>

#include "common/strings.h"
#include "controller/validate/outline.h"

namespace clusterctl {
namespace {

std::optional<long long> Number(std::string_view value) {
  std::string_view v = Trim(value);
  if (v.empty() || !std::isdigit(static_cast<unsigned char>(v[0]))) return std::nullopt;
  char* end = nullptr;
  std::string copy(v);
  long long n = std::strtoll(copy.c_str(), &end, 10);
  if (end == copy.c_str()) return std::nullopt;
  return n;
}

// "Enabled"/"Yes"/"On" -> true, "Disabled"/"No"/"Off" -> false, else nullopt.
std::optional<bool> Flag(std::string_view value) {
  std::string v = AsciiLower(Trim(value));
  if (v == "enabled" || v == "yes" || v == "on") return true;
  if (v == "disabled" || v == "no" || v == "off") return false;
  return std::nullopt;
}

// The field names of one outline dialect (-q text or -q -x XML).
struct FieldNames {
  const char* product_name;
  const char* persistence;
  const char* ecc_errors;
  const char* volatile_counts;
  const char* aggregate_counts;
  const char* retired_pages;
  std::vector<const char*> retired_counts;   // paths below retired_pages
  std::vector<const char*> retired_pending;  // keys below retired_pages
  const char* remapped_rows;
  const char* remapped_uncorrectable;
  const char* remap_pending;
  const char* remap_failure;
  const char* ecc_mode;
  const char* pcie_gen_max;
  const char* pcie_gen_current;
  const char* pcie_width_max;
  const char* pcie_width_current;
  const char* performance_state;
  std::vector<const char*> clock_reasons;  // the section's name, newest first
  const char* clock_reason_prefix;         // XML element prefix of one reason, "" in text
  const char* fabric_state;
  const char* fabric_status;
  const char* fabric_health;
  const char* mig_devices;       // MIG mode: volatile ECC is counted per instance
  const char* mig_device;
  const char* mig_volatile;      // path below one instance
};

const FieldNames kTextNames = {
    "Product Name", "Persistence Mode", "ECC Errors", "Volatile", "Aggregate", "Retired Pages",
    {"Single Bit ECC", "Double Bit ECC"}, {"Pending Page Blacklist", "Pending Page Retirement"},
    "Remapped Rows", "Uncorrectable Error", "Pending", "Remapping Failure Occurred", "ECC Mode/Current",
    "PCI/GPU Link Info/PCIe Generation/Max", "PCI/GPU Link Info/PCIe Generation/Current",
    "PCI/GPU Link Info/Link Width/Max", "PCI/GPU Link Info/Link Width/Current", "Performance State",
    {"Clocks Event Reasons", "Clocks Throttle Reasons"}, "", "Fabric/State", "Fabric/Status", "Fabric/Health/Summary", "MIG Devices", "MIG Device", "ECC Errors/Volatile"};

const FieldNames kXmlNames = {
    "product_name", "persistence_mode", "ecc_errors", "volatile", "aggregate", "retired_pages",
    {"multiple_single_bit_retirement/retired_count", "double_bit_retirement/retired_count"},
    {"pending_blacklist", "pending_retirement"},
    "remapped_rows", "remapped_row_unc", "remapped_row_pending", "remapped_row_failure", "ecc_mode/current_ecc",
    "pci/pci_gpu_link_info/pcie_gen/max_link_gen", "pci/pci_gpu_link_info/pcie_gen/current_link_gen",
    "pci/pci_gpu_link_info/link_widths/max_link_width", "pci/pci_gpu_link_info/link_widths/current_link_width",
    "performance_state", {"clocks_event_reasons", "clocks_throttle_reasons"}, "reason_", "fabric/state",
    "fabric/status", "fabric/health/summary", "mig_devices", "mig_device",
    "ecc_error_count/volatile_count"};

// "N/A": the counter does not exist on this GPU. Anything else that is not a
// number ("[Unknown Error]", "ERR!", "[GPU requires reset]") is a counter
// that exists and could not be read.
bool NotApplicable(std::string_view value) { return Trim(value) == "N/A"; }

// Sums the uncorrectable counters below an ECC "Volatile"/"Aggregate" node:
// every numeric leaf whose name says uncorrectable (Ampere and later), or the
// Total of "Double Bit" (Volta and earlier). nullopt when none is numeric.
// Counters that exist but cannot be read go to `unreadable`.
std::optional<long long> SumUncorrectable(const OutlineNode& counts, std::vector<std::string>& lines,
                                          std::vector<std::string>& unreadable) {
  std::optional<long long> sum;
  auto add = [&](const OutlineNode& counter, const std::string& shown) {
    if (std::optional<long long> n = Number(counter.value)) {
      sum = sum.value_or(0) + *n;
      if (*n > 0) lines.push_back(shown);
    } else if (!NotApplicable(counter.value)) {
      unreadable.push_back(std::string(Trim(shown)));
    }
  };
  for (const OutlineNode& c : counts.children) {
    std::string key = AsciiLower(c.key);
    if (key == "double bit" || key == "double_bit") {
      const OutlineNode* total = c.Child(key == "double bit" ? "Total" : "total");
      if (total != nullptr) add(*total, c.text + " / " + Trim(total->text).data());
    } else if (key.find("uncorr") != std::string::npos) {
      add(c, c.text);
    }
  }
  return sum;
}

// "clocks_event_reason_hw_slowdown" / "HW Slowdown" -> "hw slowdown".
std::string ClockReasonName(const std::string& key, const char* xml_prefix) {
  std::string name = key;
  if (*xml_prefix != '\0') {
    size_t at = name.find(xml_prefix);
    if (at != std::string::npos) name = name.substr(at + std::string(xml_prefix).size());
    std::replace(name.begin(), name.end(), '_', ' ');
  }
  return AsciiLower(name);
}

void CollectClockReasons(const OutlineNode& node, const char* xml_prefix, GpuStatus& status) {
  for (const OutlineNode& reason : node.children) {
    std::string value = AsciiLower(Trim(reason.value));
    std::optional<bool> active;
    if (value == "active") active = true;
    else if (value == "not active") active = false;
    status.clock_reasons.push_back({ClockReasonName(reason.key, xml_prefix), active, std::string(Trim(reason.text))});
    CollectClockReasons(reason, xml_prefix, status);
  }
}

void ReadLinkAndClocks(const OutlineNode& gpu, const FieldNames& names, GpuStatus& status) {
  auto read = [&](const char* path, std::optional<int>& into) {
    if (const OutlineNode* n = gpu.Find(path)) {
      if (std::optional<long long> v = Number(n->value)) into = static_cast<int>(*v);
      status.pcie_lines.push_back(std::string(path) + ": " + std::string(Trim(n->value)));
    }
  };
  read(names.pcie_gen_max, status.pcie_gen_max);
  read(names.pcie_gen_current, status.pcie_gen_current);
  read(names.pcie_width_max, status.pcie_width_max);
  read(names.pcie_width_current, status.pcie_width_current);
  status.performance_state = std::string(Trim(gpu.ValueAt(names.performance_state)));
  for (const char* section : names.clock_reasons) {
    if (const OutlineNode* reasons = gpu.Child(section)) {
      status.has_clock_reasons = true;
      CollectClockReasons(*reasons, names.clock_reason_prefix, status);
      break;
    }
  }
  for (auto [path, into] : {std::pair{names.fabric_state, &status.fabric_state},
                            std::pair{names.fabric_status, &status.fabric_status},
                            std::pair{names.fabric_health, &status.fabric_health}}) {
    if (const OutlineNode* n = gpu.Find(path)) {
      *into = std::string(Trim(n->value));
      status.fabric_lines.push_back(std::string(path) + ": " + *into);
    }
  }
}

// In MIG mode the GPU's own volatile counters read N/A and each instance
// counts its own: their sum is the reading.
std::optional<long long> MigVolatileUncorrectable(const OutlineNode& gpu, const FieldNames& names,
                                                  std::vector<std::string>& lines, std::vector<std::string>& unreadable) {
  const OutlineNode* devices = gpu.Child(names.mig_devices);
  if (devices == nullptr) return std::nullopt;
  std::optional<long long> sum;
  for (const OutlineNode& device : devices->children) {
    if (device.key != names.mig_device) continue;
    const OutlineNode* counts = device.Find(names.mig_volatile);
    if (counts == nullptr) continue;
    std::vector<std::string> instance_lines;
    std::optional<long long> n = SumUncorrectable(*counts, instance_lines, unreadable);
    if (n) sum = sum.value_or(0) + *n;
    for (std::string& l : instance_lines) lines.push_back("MIG instance: " + l);
  }
  return sum;
}

GpuStatus GpuFromOutline(const OutlineNode& gpu, const FieldNames& names) {
  GpuStatus status;
  status.name = gpu.ValueAt(names.product_name);
  if (const OutlineNode* p = gpu.Child(names.persistence)) {
    status.persistence = Flag(p->value);
    status.lines.push_back(p->text);
  }
  if (const OutlineNode* mode = gpu.Find(names.ecc_mode)) {
    status.ecc_mode = std::string(Trim(mode->value));
    status.ecc_enabled = Flag(mode->value);
    status.lines.push_back("ECC Mode: " + status.ecc_mode);
  }
  if (const OutlineNode* ecc = gpu.Child(names.ecc_errors)) {
    for (auto [section, sum] : {std::pair{names.volatile_counts, &status.volatile_uncorrectable},
                                std::pair{names.aggregate_counts, &status.aggregate_uncorrectable}}) {
      const OutlineNode* counts = ecc->Child(section);
      std::string label = section == names.volatile_counts ? "Volatile" : "Aggregate";
      if (counts == nullptr) {
        status.ecc_unreadable.push_back(label + ": not printed");
        continue;
      }
      std::vector<std::string> lines, unreadable;
      *sum = SumUncorrectable(*counts, lines, unreadable);
      if (!sum->has_value() && unreadable.empty() && label == "Volatile") {
        *sum = MigVolatileUncorrectable(gpu, names, lines, unreadable);
      }
      for (std::string& l : lines) status.lines.push_back(label + ": " + std::string(Trim(l)));
      for (std::string& l : unreadable) status.ecc_unreadable.push_back(label + ": " + l);
      if (!sum->has_value() && unreadable.empty()) {
        status.ecc_unreadable.push_back(label + ": no uncorrectable counter reads a number" +
                                        (counts->value.empty() ? std::string() : " (" + counts->value + ")"));
      }
    }
  } else {
    status.ecc_unreadable.push_back("ECC Errors: not printed");
  }
  ReadLinkAndClocks(gpu, names, status);
  if (const OutlineNode* retired = gpu.Child(names.retired_pages)) {
    for (const char* path : names.retired_counts) {
      const OutlineNode* count = retired->Find(path);
      if (count != nullptr && Number(count->value)) {
        status.retired_pages = status.retired_pages.value_or(0) + *Number(count->value);
        if (*Number(count->value) > 0) status.lines.push_back("Retired Pages: " + std::string(Trim(count->text)));
      }
    }
    for (const char* key : names.retired_pending) {
      const OutlineNode* pending = retired->Child(key);
      if (pending == nullptr || !Flag(pending->value)) continue;
      status.retirement_pending = status.retirement_pending.value_or(false) || *Flag(pending->value);
      status.lines.push_back("Retired Pages: " + std::string(Trim(pending->text)));
    }
  }
  if (const OutlineNode* remap = gpu.Child(names.remapped_rows)) {
    if (const OutlineNode* unc = remap->Child(names.remapped_uncorrectable)) status.remapped_uncorrectable = Number(unc->value);
    if (const OutlineNode* pending = remap->Child(names.remap_pending)) {
      status.remap_pending = Flag(pending->value);
      status.lines.push_back("Remapped Rows: " + std::string(Trim(pending->text)));
    }
    if (const OutlineNode* failure = remap->Child(names.remap_failure)) {
      status.remap_failure = Flag(failure->value);
      status.lines.push_back("Remapped Rows: " + std::string(Trim(failure->text)));
    }
  }
  return status;
}

std::string FirstLine(std::string_view text) {
  for (const std::string& line : Split(text, '\n')) {
    if (!Trim(line).empty()) return std::string(Trim(line));
  }
  return "(empty output)";
}

Status NotUnderstood(const char* what, std::string_view text) {
  return Status::InvalidArgument(std::string("not ") + what + " output: " + Printable(FirstLine(text), 200));
}

// A small XML reader for nvidia-smi -q -x: elements, text, the attributes of
// an element as "@name" children; declarations, DOCTYPE and comments skipped.
// Good enough for nvidia-smi's regular output, not a general XML parser.
Result<OutlineNode> ParseXml(std::string_view text) {
  OutlineNode root;
  std::vector<OutlineNode*> open = {&root};
  size_t pos = 0;
  int line = 1;
  auto advance_to = [&](size_t to) {
    line += static_cast<int>(std::count(text.begin() + static_cast<long>(pos), text.begin() + static_cast<long>(to), '\n'));
    pos = to;
  };
  while (pos < text.size()) {
    size_t lt = text.find('<', pos);
    if (lt == std::string_view::npos) {
      if (!Trim(text.substr(pos)).empty()) return Status::InvalidArgument("text after the last element");
      break;
    }
    std::string_view between = Trim(text.substr(pos, lt - pos));
    if (!between.empty()) open.back()->value += std::string(between);
    advance_to(lt);
    if (text.compare(pos, 4, "<!--") == 0) {
      size_t end = text.find("-->", pos);
      if (end == std::string_view::npos) return Status::InvalidArgument("unterminated comment");
      advance_to(end + 3);
      continue;
    }
    size_t gt = text.find('>', pos);
    if (gt == std::string_view::npos) return Status::InvalidArgument("unterminated tag at line " + std::to_string(line));
    std::string_view tag = text.substr(pos + 1, gt - pos - 1);
    int tag_line = line;
    advance_to(gt + 1);
    if (tag.empty() || tag[0] == '?' || tag[0] == '!') continue;
    if (tag[0] == '/') {
      std::string name(Trim(tag.substr(1)));
      if (open.size() < 2 || open.back()->key != name) {
        return Status::InvalidArgument("unexpected </" + name + "> at line " + std::to_string(tag_line));
      }
      OutlineNode* closed = open.back();
      closed->text = "<" + closed->key + ">" + closed->value + "</" + closed->key + ">";
      open.pop_back();
      continue;
    }
    bool self_closing = tag.back() == '/';
    if (self_closing) tag.remove_suffix(1);
    size_t name_end = tag.find_first_of(" \t\r\n");
    OutlineNode node;
    node.key = std::string(tag.substr(0, name_end));
    node.line = tag_line;
    // Attributes: name="value" pairs.
    static const std::regex kAttribute(R"re(([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*"([^"]*)")re");
    std::string attributes(name_end == std::string_view::npos ? "" : tag.substr(name_end));
    for (std::sregex_iterator it(attributes.begin(), attributes.end(), kAttribute), end; it != end; ++it) {
      OutlineNode attribute;
      attribute.key = "@" + (*it)[1].str();
      attribute.value = (*it)[2].str();
      attribute.line = tag_line;
      node.children.push_back(std::move(attribute));
    }
    open.back()->children.push_back(std::move(node));
    if (!self_closing) open.push_back(&open.back()->children.back());
  }
  if (open.size() != 1) return Status::InvalidArgument("element <" + open.back()->key + "> is not closed");
  return root;
}

}  // namespace

Result<NvidiaSmiReport> ParseNvidiaSmiQuery(std::string_view text) {
  OutlineNode root = ParseOutline(text);
  const OutlineNode* attached = root.Child("Attached GPUs");
  if (attached == nullptr) return NotUnderstood("nvidia-smi -q", text);
  NvidiaSmiReport report;
  report.driver_version = root.ValueAt("Driver Version");
  for (const OutlineNode& node : root.children) {
    if (node.has_separator || node.key.rfind("GPU ", 0) != 0) continue;
    GpuStatus gpu = GpuFromOutline(node, kTextNames);
    gpu.bus_id = node.key.substr(4);
    gpu.index = static_cast<int>(report.gpus.size());
    report.gpus.push_back(std::move(gpu));
  }
  if (!Number(attached->value)) return Status::InvalidArgument("nvidia-smi -q: cannot read " + attached->text);
  report.attached = static_cast<int>(*Number(attached->value));
  return report;
}

Result<NvidiaSmiReport> ParseNvidiaSmiXml(std::string_view text) {
  auto tree = ParseXml(text);
  if (!tree.ok()) return Status::InvalidArgument("nvidia-smi -q -x: " + tree.status().message());
  const OutlineNode* log = tree->Child("nvidia_smi_log");
  if (log == nullptr) return NotUnderstood("nvidia-smi -q -x", text);
  NvidiaSmiReport report;
  report.driver_version = log->ValueAt("driver_version");
  for (const OutlineNode& node : log->children) {
    if (node.key != "gpu") continue;
    GpuStatus gpu = GpuFromOutline(node, kXmlNames);
    gpu.bus_id = node.ValueAt("@id");
    gpu.index = static_cast<int>(report.gpus.size());
    report.gpus.push_back(std::move(gpu));
  }
  std::string attached = log->ValueAt("attached_gpus");
  if (!Number(attached)) return Status::InvalidArgument("nvidia-smi -q -x: attached_gpus is '" + attached + "'");
  report.attached = static_cast<int>(*Number(attached));
  return report;
}

Result<NvidiaSmiReport> ParseNvidiaSmiCsv(std::string_view text) {
  std::vector<std::string> lines;
  for (const std::string& line : Split(text, '\n')) {
    if (!Trim(line).empty()) lines.push_back(std::string(Trim(line)));
  }
  if (lines.empty()) return NotUnderstood("nvidia-smi --query-gpu", text);
  std::vector<std::string> columns;
  for (const std::string& c : Split(lines[0], ',')) {
    std::string name(Trim(c));
    if (size_t unit = name.find(" ["); unit != std::string::npos) name.resize(unit);
    columns.push_back(name);
  }
  auto column = [&](const char* name) -> int {
    auto it = std::find(columns.begin(), columns.end(), name);
    return it == columns.end() ? -1 : static_cast<int>(it - columns.begin());
  };
  if (column("index") < 0 && column("pci.bus_id") < 0) {
    return Status::InvalidArgument("nvidia-smi CSV without a header naming index or pci.bus_id: " + Printable(lines[0], 120));
  }
  NvidiaSmiReport report;
  for (size_t row = 1; row < lines.size(); ++row) {
    std::vector<std::string> cells;
    for (const std::string& c : Split(lines[row], ',')) cells.push_back(std::string(Trim(c)));
    if (cells.size() != columns.size()) {
      return Status::InvalidArgument("nvidia-smi CSV line " + std::to_string(row + 1) + " has " +
                                     std::to_string(cells.size()) + " fields, the header " + std::to_string(columns.size()));
    }
    auto cell = [&](const char* name) -> std::string {
      int i = column(name);
      return i < 0 ? std::string() : cells[static_cast<size_t>(i)];
    };
    auto described = [&](const char* name) { return std::string(name) + " = " + cell(name); };
    GpuStatus gpu;
    gpu.index = Number(cell("index")).has_value() ? static_cast<int>(*Number(cell("index"))) : static_cast<int>(row - 1);
    gpu.name = cell("name");
    gpu.bus_id = cell("pci.bus_id");
    gpu.persistence = Flag(cell("persistence_mode"));
    if (column("ecc.mode.current") >= 0) {
      gpu.ecc_mode = cell("ecc.mode.current");
      gpu.ecc_enabled = Flag(gpu.ecc_mode);
    }
    gpu.volatile_uncorrectable = Number(cell("ecc.errors.uncorrected.volatile.total"));
    gpu.aggregate_uncorrectable = Number(cell("ecc.errors.uncorrected.aggregate.total"));
    gpu.retirement_pending = Flag(cell("retired_pages.pending"));
    gpu.remapped_uncorrectable = Number(cell("remapped_rows.uncorrectable"));
    gpu.remap_pending = Flag(cell("remapped_rows.pending"));
    gpu.remap_failure = Flag(cell("remapped_rows.failure"));
    if (Number(cell("retired_pages.sbe")) || Number(cell("retired_pages.dbe"))) {
      gpu.retired_pages = Number(cell("retired_pages.sbe")).value_or(0) + Number(cell("retired_pages.dbe")).value_or(0);
    }
    for (const char* name : {"persistence_mode", "ecc.errors.uncorrected.volatile.total",
                             "ecc.errors.uncorrected.aggregate.total", "retired_pages.pending", "remapped_rows.pending",
                             "remapped_rows.failure"}) {
      if (column(name) >= 0) gpu.lines.push_back(described(name));
    }
    if (report.driver_version.empty()) report.driver_version = cell("driver_version");
    report.gpus.push_back(std::move(gpu));
  }
  return report;
}

Result<NvidiaSmiReport> ParseNvidiaSmiTable(std::string_view text) {
  static const std::regex kDriver(R"(Driver Version:\s*([0-9.]+))");
  // "|   0  NVIDIA H100 80GB HBM3    On  |   00000000:00:09.0 Off |    0 |"
  static const std::regex kGpuRow(R"(^\|\s+(\d+)\s+(.*\S)\s+(On|Off)\s+\|\s+([0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f.]+)\s+\S+\s+\|\s*(\S+)\s*\|)");
  NvidiaSmiReport report;
  std::smatch match;
  std::vector<std::string> lines = Split(text, '\n');
  GpuStatus* current = nullptr;
  bool saw_header = false;
  for (std::string& line : lines) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (std::regex_search(line, match, kDriver)) {
      report.driver_version = match[1];
      saw_header = true;
    }
    if (line.find("MIG devices") != std::string::npos || line.find("Processes:") != std::string::npos) break;
    if (std::regex_search(line, match, kGpuRow)) {
      GpuStatus gpu;
      gpu.index = std::atoi(match[1].str().c_str());
      gpu.name = match[2];
      gpu.persistence = match[3] == "On";
      gpu.bus_id = match[4];
      gpu.volatile_uncorrectable = Number(match[5].str());
      // The table's "Volatile Uncorr. ECC" column is N/A when ECC is off or absent.
      gpu.ecc_mode = gpu.volatile_uncorrectable ? "Enabled" : match[5].str();
      if (gpu.volatile_uncorrectable) gpu.ecc_enabled = true;
      gpu.lines.push_back(line);
      report.gpus.push_back(std::move(gpu));
      current = &report.gpus.back();
      continue;
    }
    if (current != nullptr && line.rfind("|", 0) == 0 && line.find("+--") == std::string::npos) {
      current->lines.push_back(line);
      if (line.find("ERR!") != std::string::npos) current->problems.push_back("ERR! in: " + std::string(Trim(line)));
    } else if (line.rfind("+--", 0) == 0) {
      current = nullptr;
    }
  }
  if (!saw_header) return NotUnderstood("nvidia-smi", text);
  return report;
}

Result<std::vector<std::string>> ParseNvidiaSmiList(std::string_view text) {
  static const std::regex kGpu(R"(^GPU \d+: .+)");
  static const std::regex kMig(R"(^\s+MIG .*Device\s+\d+:)");
  std::vector<std::string> gpus;
  for (const std::string& raw : Split(text, '\n')) {
    std::string line(Trim(raw));
    if (line.empty()) continue;
    if (std::regex_search(raw, kMig)) continue;
    if (!std::regex_search(line, kGpu)) return Status::InvalidArgument("not nvidia-smi -L output: " + Printable(line, 200));
    gpus.push_back(line);
  }
  return gpus;
}

Result<std::vector<NvlinkGpu>> ParseNvlinkStatus(std::string_view text) {
  // "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-...)", then "\t Link 0: 25 GB/s" or "Link 1: <inactive>".
  static const std::regex kGpu(R"(^GPU (\d+): (.*?)\s*(\(UUID: [^)]*\))?$)");
  static const std::regex kLink(R"(^Link (\d+): (.*)$)");
  static const std::regex kSpeed(R"(^([0-9]+(\.[0-9]+)?) GB/s$)");
  std::vector<NvlinkGpu> gpus;
  std::smatch m;
  for (const std::string& raw : Split(text, '\n')) {
    std::string line(Trim(raw));
    if (line.empty()) continue;
    if (std::regex_match(line, m, kGpu)) {
      NvlinkGpu gpu;
      gpu.index = std::atoi(m[1].str().c_str());
      gpu.name = m[2];
      gpu.line = line;
      gpus.push_back(std::move(gpu));
      continue;
    }
    // An elision before the first GPU ("...." where a capture left GPUs out) is no GPU's.
    if (gpus.empty() && line.find_first_not_of(".\u2026") == std::string::npos) continue;
    if (gpus.empty() || !std::regex_match(line, m, kLink)) {
      return Status::InvalidArgument("not nvidia-smi nvlink -s output: " + Printable(line, 200));
    }
    NvlinkLink link;
    link.link = std::atoi(m[1].str().c_str());
    link.line = gpus.back().line.substr(0, gpus.back().line.find(" (UUID")) + ": " + line;
    std::string value(Trim(m[2].str()));
    std::smatch speed;
    if (value == "<inactive>") link.inactive = true;
    else if (std::regex_match(value, speed, kSpeed)) link.gbps = std::atof(speed[1].str().c_str());
    gpus.back().links.push_back(std::move(link));
  }
  if (gpus.empty()) return NotUnderstood("nvidia-smi nvlink -s", text);
  return gpus;
}

Result<std::vector<NvlinkErrorGpu>> ParseNvlinkErrors(std::string_view text) {
  // "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-...)", then "\t Link 0: Replay Errors: 0", a blank line between links.
  static const std::regex kGpu(R"(^GPU (\d+): (.*?)\s*(\(UUID: [^)]*\))?$)");
  static const std::regex kCounter(R"(^Link (\d+): ([A-Za-z][A-Za-z ]*[A-Za-z]): (\d{1,18}|N/A)$)");
  std::vector<NvlinkErrorGpu> gpus;
  std::smatch m;
  for (const std::string& raw : Split(text, '\n')) {
    std::string line(Trim(raw));
    if (line.empty()) continue;
    if (std::regex_match(line, m, kGpu)) {
      gpus.push_back({std::atoi(m[1].str().c_str()), m[2], {}, line});
      continue;
    }
    if (gpus.empty() || !std::regex_match(line, m, kCounter)) {
      return Status::InvalidArgument("not nvidia-smi nvlink -e output: " + Printable(line, 200));
    }
    NvlinkErrorCounter counter;
    counter.link = std::atoi(m[1].str().c_str());
    counter.name = m[2];
    if (m[3] != "N/A") counter.value = std::atoll(m[3].str().c_str());
    counter.line = gpus.back().line.substr(0, gpus.back().line.find(" (UUID")) + ": " + line;
    gpus.back().counters.push_back(std::move(counter));
  }
  if (gpus.empty()) return NotUnderstood("nvidia-smi nvlink -e", text);
  return gpus;
}

}  // namespace clusterctl
