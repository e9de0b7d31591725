// The NVIDIA driver's kernel log lines (NVRM), as `journalctl -k --grep NVRM`
// or `dmesg | grep NVRM` print them: Xid events and the driver's messages
// that mean a GPU is lost without an Xid (fallen off the bus at probe time,
// RmInitAdapter failed). A pure function of the text; never throws, whatever
// the bytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace clusterctl {

struct NvrmLog {
  // One Xid code: how many lines carry it and the first of them, so an Xid
  // 79 stays visible behind hundreds of later Xid 13 lines.
  // An Xid the driver names as the cause of another ("Xid ...: 45, ...
  // caused by previous Xid 149", driver 550 and later): how many of the
  // code's lines name it, and the first of them.
  struct Cause {
    int code = 0;
    long long lines = 0;
    std::string first;
  };
  struct Xid {
    int code = 0;
    long long lines = 0;
    std::string first;
    std::vector<Cause> causes;  // in order of first appearance
  };
  // One known fatal driver message: what it means, how many lines, the
  // first (a message the driver printed over several lines, joined).
  struct Fatal {
    std::string what;  // "GPU has fallen off the bus"
    long long lines = 0;
    std::string first;
  };
  std::vector<Xid> xids;      // in order of first appearance
  std::vector<Fatal> fatal;   // in order of first appearance
  long long nvrm_lines = 0;   // every line that names NVRM
};

NvrmLog ReadNvrmLog(std::string_view text);

}  // namespace clusterctl
