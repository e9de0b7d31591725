#include "agent/facts/nvidia_mig.h"

#include <cctype>

#include "common/strings.h"

namespace clusterctl::facts {
namespace {

std::string_view TrimRight(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

bool AllDigits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// A decimal of at most 6 digits and at most `max`.
bool Number(std::string_view text, int max, int& out) {
  if (!AllDigits(text) || text.size() > 6) return false;
  out = std::stoi(std::string(text));
  return out <= max;
}

std::vector<std::string> Words(std::string_view line) {
  std::vector<std::string> words;
  size_t at = 0;
  while (true) {
    at = line.find_first_not_of(" \t", at);
    if (at == std::string_view::npos) return words;
    const size_t end = line.find_first_of(" \t", at);
    words.emplace_back(line.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
    if (end == std::string_view::npos) return words;
    at = end;
  }
}

Status LineError(std::string_view command, size_t number, std::string_view line, std::string_view why) {
  return Status::InvalidArgument(std::string(command) + " output, line " + std::to_string(number) + " (" +
                                 Printable(line, 80) + "): " + std::string(why));
}

std::string FirstLine(std::string_view text) {
  const std::string_view trimmed = Trim(text);
  return Printable(trimmed.substr(0, trimmed.find('\n')), 100);
}

struct TableRow {
  size_t number;                  // 1-based line number in the output
  std::string line;
  std::vector<std::string> cells;  // the words between the outer bars
};

// The rows of nvidia-smi's box table titled `title` ("GPU instances:"):
// every "|...|" line after the "|===" rule, as words. A missing title or
// rule, or a line inside the table that is neither a row nor a "+---" rule,
// is an error.
Result<std::vector<TableRow>> TableRows(std::string_view text, std::string_view title, std::string_view command) {
  const std::vector<std::string> lines = Split(text, '\n');
  enum { kTitle, kRule, kRows } state = kTitle;
  std::vector<TableRow> rows;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = TrimRight(lines[i]);
    if (state == kTitle) {
      if (!line.empty() && line.front() == '|' && line.find(title) != std::string_view::npos) state = kRule;
      continue;
    }
    if (state == kRule) {
      if (line.rfind("|=", 0) == 0) state = kRows;
      continue;
    }
    if (line.empty() || line.front() == '+') continue;
    if (line.front() != '|' || line.size() < 2 || line.back() != '|') {
      return LineError(command, i + 1, line, "not a row of the table");
    }
    rows.push_back({i + 1, std::string(line), Words(line.substr(1, line.size() - 2))});
  }
  if (state == kTitle) {
    return Status::InvalidArgument(std::string(command) + " printed no '" + std::string(title) +
                                   "' table: " + FirstLine(text));
  }
  if (state == kRule) return Status::InvalidArgument(std::string(command) + " output: the table has no '|===' rule");
  return rows;
}

bool Placement(std::string_view text, int& start, int& size) {
  const size_t colon = text.find(':');
  return colon != std::string_view::npos && Number(text.substr(0, colon), 64, start) &&
         Number(text.substr(colon + 1), 64, size);
}

constexpr int kMaxGpu = 1023;
constexpr int kMaxId = 9999;

}  // namespace

std::string MigProfileNameRefusal(std::string_view name) {
  const std::string_view why = "is not a MIG profile name (3g.40gb, 1g.10gb+me, 1c.3g.71gb)";
  if (name.empty() || name.size() > 40 || !IsAlnumOr(name, ".+") || name != AsciiLower(name)) return std::string(why);
  std::string_view rest = name;
  auto count = [&rest](char unit) {  // "3g." -> true, rest after the '.'
    size_t digits = 0;
    while (digits < rest.size() && digits < 3 && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
    if (digits == 0 || rest[0] == '0' || rest.substr(digits, 2) != std::string{unit, '.'}) return false;
    rest.remove_prefix(digits + 2);
    return true;
  };
  if (rest.find("c.") != std::string_view::npos && !count('c')) return std::string(why);
  if (!count('g')) return std::string(why);
  size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  if (digits == 0 || digits > 4 || rest.substr(digits, 2) != "gb") return std::string(why);
  rest.remove_prefix(digits + 2);
  if (!rest.empty() && (rest[0] != '+' || rest.size() < 2)) return std::string(why);
  return "";
}

std::string GpuInstanceProfileOf(std::string_view name) {
  const size_t compute = name.find("c.");
  return std::string(compute == std::string_view::npos ? name : name.substr(compute + 2));
}

Result<std::vector<MigProfile>> ParseMigProfiles(std::string_view text) {
  constexpr std::string_view kCommand = "nvidia-smi mig -lgip";
  Result<std::vector<TableRow>> rows = TableRows(text, "GPU instance profiles:", kCommand);
  if (!rows.ok()) return rows.status();
  std::vector<MigProfile> profiles;
  for (const TableRow& row : *rows) {
    const std::vector<std::string>& c = row.cells;
    if (c.size() == 3 && AllDigits(c[0]) && AllDigits(c[1]) && AllDigits(c[2])) continue;  // CE JPEG OFA
    MigProfile p;
    const size_t slash = c.size() == 10 ? c[4].find('/') : std::string::npos;
    if (c.size() != 10 || c[1] != "MIG" || !Number(c[0], kMaxGpu, p.gpu) || !Number(c[3], kMaxId, p.id) ||
        slash == std::string::npos || !Number(c[4].substr(0, slash), 64, p.free) ||
        !Number(c[4].substr(slash + 1), 64, p.total) || p.free > p.total) {
      return LineError(kCommand, row.number, row.line, "not a profile row (GPU, MIG NAME, ID, FREE/TOTAL, memory, ...)");
    }
    if (std::string why = MigProfileNameRefusal(c[2]); !why.empty()) return LineError(kCommand, row.number, row.line, "'" + Printable(c[2], 40) + "' " + why);
    p.name = c[2];
    profiles.push_back(std::move(p));
  }
  return profiles;
}

Result<std::vector<MigGpuInstance>> ParseMigGpuInstances(std::string_view text) {
  constexpr std::string_view kCommand = "nvidia-smi mig -lgi";
  Result<std::vector<TableRow>> rows = TableRows(text, "GPU instances:", kCommand);
  if (!rows.ok()) return rows.status();
  std::vector<MigGpuInstance> instances;
  for (const TableRow& row : *rows) {
    const std::vector<std::string>& c = row.cells;
    MigGpuInstance gi;
    if (c.size() != 6 || c[1] != "MIG" || !Number(c[0], kMaxGpu, gi.gpu) || !Number(c[3], kMaxId, gi.profile_id) ||
        !Number(c[4], kMaxId, gi.id) || !Placement(c[5], gi.placement_start, gi.placement_size)) {
      return LineError(kCommand, row.number, row.line, "not a GPU instance row (GPU, MIG NAME, PROFILE, ID, START:SIZE)");
    }
    if (std::string why = MigProfileNameRefusal(c[2]); !why.empty()) return LineError(kCommand, row.number, row.line, "'" + Printable(c[2], 40) + "' " + why);
    gi.profile = c[2];
    instances.push_back(std::move(gi));
  }
  return instances;
}

Result<std::vector<MigComputeInstance>> ParseMigComputeInstances(std::string_view text) {
  constexpr std::string_view kCommand = "nvidia-smi mig -lci";
  Result<std::vector<TableRow>> rows = TableRows(text, "Compute instances:", kCommand);
  if (!rows.ok()) return rows.status();
  std::vector<MigComputeInstance> instances;
  for (const TableRow& row : *rows) {
    const std::vector<std::string>& c = row.cells;
    MigComputeInstance ci;
    int start = 0, size = 0;  // drivers before R470 print no placement column
    if ((c.size() != 6 && c.size() != 7) || c[2] != "MIG" || !Number(c[0], kMaxGpu, ci.gpu) ||
        !Number(c[1], kMaxId, ci.gpu_instance) || !Number(c[4], kMaxId, ci.profile_id) || !Number(c[5], kMaxId, ci.id) ||
        (c.size() == 7 && !Placement(c[6], start, size))) {
      return LineError(kCommand, row.number, row.line, "not a compute instance row (GPU, GI, MIG NAME, PROFILE, ID[, START:SIZE])");
    }
    if (std::string why = MigProfileNameRefusal(c[3]); !why.empty()) return LineError(kCommand, row.number, row.line, "'" + Printable(c[3], 40) + "' " + why);
    ci.name = c[3];
    instances.push_back(std::move(ci));
  }
  return instances;
}

Result<std::vector<ListedGpu>> ParseNvidiaSmiList(std::string_view text) {
  constexpr std::string_view kCommand = "nvidia-smi -L";
  std::vector<ListedGpu> gpus;
  const std::vector<std::string> lines = Split(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = TrimRight(lines[i]);
    if (Trim(line).empty()) continue;
    const std::vector<std::string> w = Words(line);
    if (line.rfind("GPU ", 0) == 0) {
      ListedGpu gpu;
      const size_t colon = line.find(": "), open = line.rfind(" (UUID: ");
      if (colon == std::string_view::npos || open == std::string_view::npos || open < colon ||
          !Number(line.substr(4, colon - 4), kMaxGpu, gpu.index) || line.back() != ')') {
        return LineError(kCommand, i + 1, line, "not 'GPU N: MODEL (UUID: GPU-...)'");
      }
      gpu.model = std::string(Trim(line.substr(colon + 2, open - colon - 2)));
      gpu.uuid = std::string(line.substr(open + 8, line.size() - open - 9));
      if (gpu.model.empty() || Printable(gpu.model, 200) != gpu.model || gpu.uuid.rfind("GPU-", 0) != 0 ||
          !IsAlnumOr(gpu.uuid, "-")) {
        return LineError(kCommand, i + 1, line, "a GPU line with an unreadable model or UUID");
      }
      gpus.push_back(std::move(gpu));
      continue;
    }
    MigDevice device;
    if (w.size() != 6 || w[0] != "MIG" || w[2] != "Device" || w[3].size() < 2 || w[3].back() != ':' ||
        !Number(std::string_view(w[3]).substr(0, w[3].size() - 1), kMaxId, device.device) || w[4] != "(UUID:" ||
        w[5].size() < 6 || w[5].back() != ')') {
      return LineError(kCommand, i + 1, line, "neither a GPU line nor '  MIG NAME Device N: (UUID: MIG-...)'");
    }
    device.uuid = w[5].substr(0, w[5].size() - 1);
    if (std::string why = MigProfileNameRefusal(w[1]); !why.empty()) return LineError(kCommand, i + 1, line, "'" + Printable(w[1], 40) + "' " + why);
    if (device.uuid.rfind("MIG-", 0) != 0 || !IsAlnumOr(device.uuid, "-/")) return LineError(kCommand, i + 1, line, "a MIG UUID that is not MIG-...");
    if (gpus.empty()) return LineError(kCommand, i + 1, line, "a MIG device before any GPU line");
    device.name = w[1];
    gpus.back().mig_devices.push_back(std::move(device));
  }
  if (gpus.empty()) return Status::InvalidArgument(std::string(kCommand) + " listed no GPU: " + FirstLine(text));
  return gpus;
}

Result<std::map<std::string, int>> ParseMigMinors(std::string_view text) {
  std::map<std::string, int> minors;
  size_t number = 0;
  for (const std::string& raw : Split(std::string(text), '\n')) {
    ++number;
    const std::string_view line = TrimRight(raw);
    if (line.empty()) continue;
    const std::vector<std::string> words = Words(line);
    int minor = 0;
    if (words.size() != 2 || !Number(words[1], 1 << 20, minor) || words[0].size() > 40 ||
        !IsAlnumOr(words[0], "/")) {
      return LineError("/proc/driver/nvidia-caps/mig-minors", number, line, "is not 'CAPABILITY MINOR'");
    }
    minors[words[0]] = minor;
  }
  if (minors.empty()) return Status::InvalidArgument("/proc/driver/nvidia-caps/mig-minors lists no capability");
  return minors;
}

}  // namespace clusterctl::facts
