#include "controller/validate/nvrm_log.h"

#include <cctype>
#include <map>

#include "common/strings.h"

namespace clusterctl {
namespace {

// Driver messages that mean the GPU is lost or unusable, with or without an
// Xid beside them (tests/fixtures/captured/SOURCES.md has a real capture of
// each): the probe-time "... installed in this system has / fallen off the
// bus and is not responding to commands" (no Xid), "GPU has fallen off the
// bus." after Xid 79, "RmInitAdapter failed!" / "rm_init_adapter failed"
// when the driver cannot initialise a GPU, the probe failing, and a GPU
// that needs a reset (NV_ERR_RESET_REQUIRED). Informational NVRM lines (the
// module's load line, "FBHUB Interrupt detected. Clearing it.", the
// persistence-mode deprecation notice) match none of them.
struct FatalPattern {
  const char* needle;
  const char* what;
};
constexpr FatalPattern kFatal[] = {
    {"fallen off the bus", "GPU has fallen off the bus"},
    {"RmInitAdapter failed", "RmInitAdapter failed (the driver cannot initialise the GPU)"},
    {"rm_init_adapter failed", "RmInitAdapter failed (the driver cannot initialise the GPU)"},
    {"probe routine failed", "the driver's probe failed for a GPU"},
    {"NV_ERR_RESET_REQUIRED", "the GPU requires a reset"},
};

constexpr size_t kLineMax = 300;     // evidence bytes kept of one line
constexpr size_t kMessageMax = 600;  // of a message the driver printed over several lines

// The code at `at` after any spaces ("  79, pid=..." -> 79); -1 when no
// digits are there or more than six.
int CodeAt(std::string_view line, size_t at) {
  while (at < line.size() && line[at] == ' ') ++at;
  int code = 0, digits = 0;
  for (; at < line.size() && std::isdigit(static_cast<unsigned char>(line[at])); ++at) {
    if (++digits > 6) return -1;
    code = code * 10 + (line[at] - '0');
  }
  return digits == 0 ? -1 : code;
}

// "NVRM: Xid (PCI:0000:3b:00): 79, pid=..." -> 79; -1 for any other line.
int XidCode(std::string_view line) {
  size_t at = line.find("NVRM: Xid");
  if (at == std::string_view::npos) return -1;
  size_t close = line.find("):", at);
  return close == std::string_view::npos ? -1 : CodeAt(line, close + 2);
}

// "... caused by previous Xid 149" -> 149; -1 for a line without it.
int CauseCode(std::string_view line) {
  constexpr std::string_view kCause = "caused by previous Xid";
  size_t at = line.find(kCause);
  return at == std::string_view::npos ? -1 : CodeAt(line, at + kCause.size());
}

void CountCause(NvrmLog::Xid& xid, int cause, std::string_view line) {
  auto it = xid.causes.begin();
  while (it != xid.causes.end() && it->code != cause) ++it;
  if (it == xid.causes.end()) it = xid.causes.insert(it, {cause, 0, Printable(line, kLineMax)});
  ++it->lines;
}

}  // namespace

NvrmLog ReadNvrmLog(std::string_view text) {
  NvrmLog log;
  std::string message;  // the current message: its first line and continuation lines, joined
  std::map<int, size_t> xid_index;  // code -> position in log.xids
  for (const std::string& raw : Split(text, '\n')) {
    std::string_view line = Trim(raw);
    bool continuation = !raw.empty() && (raw[0] == ' ' || raw[0] == '\t') && !message.empty();
    if (!continuation) message.clear();
    if (message.size() < kMessageMax) message += (message.empty() ? "" : " ") + Printable(line, kLineMax);
    if (line.find("NVRM") == std::string_view::npos) continue;
    ++log.nvrm_lines;
    if (int code = XidCode(line); code >= 0) {
      auto [at, added] = xid_index.try_emplace(code, log.xids.size());
      if (added) log.xids.push_back({code, 0, Printable(line, kLineMax), {}});
      ++log.xids[at->second].lines;
      if (int cause = CauseCode(line); cause >= 0) CountCause(log.xids[at->second], cause, line);
      continue;
    }
    for (const FatalPattern& p : kFatal) {
      if (line.find(p.needle) == std::string_view::npos) continue;
      auto it = log.fatal.begin();
      while (it != log.fatal.end() && it->what != p.what) ++it;
      if (it == log.fatal.end()) it = log.fatal.insert(it, {p.what, 0, continuation ? message : Printable(line, kLineMax)});
      ++it->lines;
      break;
    }
  }
  return log;
}

}  // namespace clusterctl
