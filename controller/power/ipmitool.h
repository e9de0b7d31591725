// ipmitool, the controller's way to a node's BMC (Debian's `ipmitool`):
// the argument vector for a power action and the pure readers of what it
// prints, tested on its real output (tests/fixtures/captured/ipmitool/).
//
// The password never reaches the argument vector (anyone on the controller
// reads argv in ps): ipmitool reads it from the inventory's file (`-f`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "inventory/bmc.h"

namespace clusterctl {

enum class PowerAction { kStatus, kOn, kOff, kCycle, kReset, kSel };

const char* ToString(PowerAction action);
// True for the actions that take a running node down (off, cycle, reset).
bool TakesNodeDown(PowerAction action);

// Seconds ipmitool waits for one answer (-N) and retries (-R): a BMC that
// does not answer fails in about (retries + 1) * timeout seconds.
inline constexpr int kIpmiAnswerTimeoutS = 2;
inline constexpr int kIpmiRetries = 2;

// `ipmitool -v -I lanplus -H ADDR -p PORT -U USER -f FILE [-C N] -N 2 -R 2
// chassis power ACTION`, or `ipmitool -I ... sel list` for kSel. -v makes a
// refused session say why on stderr (ExplainIpmitoolFailure) and leaves the
// chassis commands' stdout as it is; it would turn `sel list` into its
// verbose record format, so the SEL is read without it.
std::vector<std::string> IpmitoolArgv(const BmcSettings& bmc, PowerAction action);

enum class PowerState { kOn, kOff };
const char* ToString(PowerState state);

// `chassis power status`'s "Chassis Power is on|off".
Result<PowerState> ParsePowerStatus(const std::string& out);

// `chassis power on|off|cycle|reset`'s "Chassis Power Control: Up/On" (the
// BMC took the request); an error naming what it printed otherwise.
Status ParsePowerControl(const std::string& out);

// One record of `sel list`:
// "   1 | 11/29/2026 | 16:27:03 | Memory #0x01 | Uncorrectable ECC | Asserted"
// ("Pre-Init" and a counter stand for the date and time when the BMC's
// clock was not set yet).
struct SelEntry {
  std::string id;         // hex, as printed: "1", "1a"
  std::string when;       // "11/29/2026 16:27:03", or "Pre-Init 0000058107"
  std::string sensor;     // "Memory #0x01"
  std::string event;      // "Uncorrectable ECC"
  std::string direction;  // "Asserted" / "Deasserted"
};

// `sel list`: its records (none: an empty stdout, ipmitool saying "SEL has
// no entries" on stderr). A line that is not
// a record is an error naming it: an unread SEL never passes as empty.
Result<std::vector<SelEntry>> ParseSelList(const std::string& out);

// Why ipmitool failed, in words, from its stderr (with -v): a refused
// password, an unknown user, a cipher suite the BMC lacks, no answer;
// else its last "Error..." line, else its last line.
std::string ExplainIpmitoolFailure(const std::string& err, const BmcSettings& bmc);

}  // namespace clusterctl
