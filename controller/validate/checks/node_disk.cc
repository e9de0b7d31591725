// node.disk: free space and inodes on the file systems a node fills (the
// root, scratch and state: validate_disk_paths), each above
// validate_disk_free_min_gib and validate_disk_free_min_percent. A full
// /var stops slurmd, journald and the package manager; a full /tmp fails jobs.
#include <cmath>
#include <set>
#include <sstream>

#include "common/json_fields.h"
#include "common/strings.h"
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {

namespace {

// One line of `df --output=size,avail,itotal,iavail,target -B1`; inodes
// are absent (nullopt) where the file system has none to count (btrfs prints 0 or "-").
struct DiskSpace {
  std::string mount;
  double bytes = 0, free_bytes = 0;
  std::optional<double> inodes, free_inodes;
};

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::optional<double> Count(const std::string& word) {
  if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos || word.size() > 20) return std::nullopt;
  return std::stod(word);
}

// df prints a line per path; anything this long is not its table (a hostile
// node's 16 MiB answer is refused before it is split).
constexpr size_t kMaxDfOutput = 1 << 20;

// The data lines of that df, in output order; an error for anything else.
Result<std::vector<DiskSpace>> ParseDfOutput(const std::string& text) {
  if (text.size() > kMaxDfOutput) {
    return Status::InvalidArgument("df printed " + std::to_string(text.size()) + " bytes: not df's table");
  }
  std::vector<DiskSpace> disks;
  bool header = false;
  for (const std::string& line : Split(text, '\n')) {
    if (Trim(line).empty()) continue;
    std::istringstream words(line);
    std::string size, avail, itotal, iavail;
    words >> size >> avail >> itotal >> iavail;
    if (!header) {
      if (size != "1B-blocks" && size != "Size") return Status::InvalidArgument("not df's table: " + Printable(line, 120));
      header = true;
      continue;
    }
    std::string mount(Trim(line.substr(std::min(line.size(), static_cast<size_t>(words.tellg())))));
    auto bytes = Count(size), free_bytes = Count(avail);
    if (!bytes || !free_bytes || mount.empty() || words.fail()) {
      return Status::InvalidArgument("a df line it does not understand: " + Printable(line, 120));
    }
    disks.push_back({mount, *bytes, *free_bytes, Count(itotal), Count(iavail)});
  }
  if (disks.empty()) return Status::InvalidArgument("df listed no file system");
  return disks;
}

Argv DfCommand(const NodeView& v) {
  Argv argv = {"df", "--output=size,avail,itotal,iavail,target", "-B1", "--"};
  for (const std::string& path : StringsAt(v.vars, "validate_disk_paths")) argv.push_back(path);
  return argv;
}

const ProbeSpec kDf{.id = "df", .command_for = DfCommand, .timeout_s = 30};

// "/var: 3.2 GiB free (4%)": why a mount fails, or "" when it passes.
std::string Shortage(const DiskSpace& d, double min_gib, double min_percent) {
  double percent = d.bytes > 0 ? 100.0 * d.free_bytes / d.bytes : 0;
  std::string why;
  if (d.free_bytes / kGiB < min_gib || percent < min_percent) {
    why = d.mount + ": " + FormatNumber(d.free_bytes / kGiB) + " GiB free (" + FormatNumber(percent) + "%)";
  }
  if (d.inodes && *d.inodes > 0 && d.free_inodes && 100.0 * *d.free_inodes / *d.inodes < min_percent) {
    why += (why.empty() ? d.mount + ": " : ", ") + FormatNumber(100.0 * *d.free_inodes / *d.inodes) + "% of inodes free";
  }
  return why;
}

CheckResult Judge(const NodeView& v) {
  const ToolOutput& df = v.node.Output(kDf.id);
  double min_gib = NumberAt(v.vars, "validate_disk_free_min_gib", 1);
  double min_percent = NumberAt(v.vars, "validate_disk_free_min_percent", 5);
  std::string threshold = ">= " + FormatNumber(min_gib) + " GiB and " + FormatNumber(min_percent) + "% free";
  Result<std::vector<DiskSpace>> disks = ParseDfOutput(df.out);
  if (!df.Succeeded() || !disks.ok()) {
    // df names a path it cannot read on stderr ("df: /scratch: No such file or directory").
    std::string problem = disks.ok() ? std::string(Trim(df.err.substr(0, df.err.find('\n')))) : disks.status().message();
    return ToolFailed("node.disk", kNode, v.host(), "df", df, Printable(problem, 200), threshold);
  }
  std::vector<std::string> short_of, seen;
  std::set<std::string> mounts;
  for (const DiskSpace& d : *disks) {
    if (!mounts.insert(d.mount).second) continue;
    seen.push_back(d.mount + " " + FormatNumber(d.free_bytes / kGiB) + " GiB free");
    if (std::string why = Shortage(d, min_gib, min_percent); !why.empty()) short_of.push_back(why);
  }
  if (!short_of.empty()) {
    return Fail("node.disk", kNode, v.host(), "low on space: " + Join(short_of, "; "), TailLines(df.out),
                Join(short_of, "; "), threshold);
  }
  return Pass("node.disk", kNode, v.host(), Plural(static_cast<long long>(mounts.size()), "file system"), threshold,
              Join(seen, ", "));
}

const CheckRegistration kNodeDisk({.name = "node.disk",
                                   .scope = kNode,
                                   .summary = "free space and inodes on the root, scratch and state file systems",
                                   .rank = 25,
                                   .probes = {&kDf},
                                   .verdict = Judge,
                                   .variables = R"(
validate_disk_paths:
  default: [/, /tmp, /var]
  items: {type: string, syntax: path}
  description: the file systems node.disk judges (a path on each; the scratch and state file systems)
validate_disk_free_min_gib:
  default: 1
  type: number
  minimum: 0
  description: free space every file system of validate_disk_paths must have, in GiB (node.disk)
validate_disk_free_min_percent:
  default: 5
  type: number
  minimum: 0
  maximum: 100
  description: free space and free inodes every file system of validate_disk_paths must have, in percent (node.disk)
)"});

}  // namespace
}  // namespace clusterctl::checks
