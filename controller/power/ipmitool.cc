#include "controller/power/ipmitool.h"

#include "common/strings.h"

namespace clusterctl {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  for (const std::string& line : Split(text, '\n')) {
    std::string trimmed(Trim(line));
    if (!trimmed.empty()) lines.push_back(trimmed);
  }
  return lines;
}

std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> fields;
  for (const std::string& field : Split(line, '|')) fields.emplace_back(Trim(field));
  return fields;
}

bool IsHexId(const std::string& id) {
  return !id.empty() && id.size() <= 4 && id.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
}

}  // namespace

const char* ToString(PowerAction action) {
  switch (action) {
    case PowerAction::kStatus: return "status";
    case PowerAction::kOn: return "on";
    case PowerAction::kOff: return "off";
    case PowerAction::kCycle: return "cycle";
    case PowerAction::kReset: return "reset";
    case PowerAction::kSel: return "sel";
  }
  return "?";
}

bool TakesNodeDown(PowerAction action) {
  return action == PowerAction::kOff || action == PowerAction::kCycle || action == PowerAction::kReset;
}

const char* ToString(PowerState state) { return state == PowerState::kOn ? "on" : "off"; }

std::vector<std::string> IpmitoolArgv(const BmcSettings& bmc, PowerAction action) {
  std::vector<std::string> argv = {"ipmitool"};
  if (action != PowerAction::kSel) argv.push_back("-v");  // -v turns `sel list` into another format
  argv.insert(argv.end(), {"-I", ToString(bmc.interface), "-H", bmc.address, "-p", std::to_string(bmc.port), "-U",
                           bmc.user, "-f", bmc.password_file});
  if (bmc.cipher_suite) argv.insert(argv.end(), {"-C", std::to_string(*bmc.cipher_suite)});
  argv.insert(argv.end(), {"-N", std::to_string(kIpmiAnswerTimeoutS), "-R", std::to_string(kIpmiRetries)});
  if (action == PowerAction::kSel) {
    argv.insert(argv.end(), {"sel", "list"});
  } else {
    argv.insert(argv.end(), {"chassis", "power", ToString(action)});
  }
  return argv;
}

Result<PowerState> ParsePowerStatus(const std::string& out) {
  for (const std::string& line : Lines(out)) {
    if (line == "Chassis Power is on") return PowerState::kOn;
    if (line == "Chassis Power is off") return PowerState::kOff;
  }
  return Status::Corruption("ipmitool printed no power state: '" + Printable(Trim(out), 120) + "'");
}

Status ParsePowerControl(const std::string& out) {
  for (const std::string& line : Lines(out)) {
    if (line.rfind("Chassis Power Control: ", 0) == 0) return Status::Ok();
  }
  return Status::Corruption("the BMC did not confirm the request: '" + Printable(Trim(out), 120) + "'");
}

Result<std::vector<SelEntry>> ParseSelList(const std::string& out) {
  std::vector<SelEntry> entries;
  for (const std::string& line : Lines(out)) {
    if (line == "SEL has no entries") continue;
    std::vector<std::string> f = Fields(line);
    // id | date | time | sensor | event [| direction]
    if (f.size() < 5 || !IsHexId(f[0])) {
      return Status::Corruption("unreadable SEL line '" + Printable(line, 120) + "'");
    }
    entries.push_back({f[0], f[1] + " " + f[2], f[3], f[4], f.size() > 5 ? f[5] : ""});
  }
  return entries;
}

std::string ExplainIpmitoolFailure(const std::string& err, const BmcSettings& bmc) {
  const std::string where = "the BMC at " + bmc.address + ":" + std::to_string(bmc.port);
  if (err.find("RAKP 2 HMAC is invalid") != std::string::npos ||
      err.find("Activate Session error: Invalid password") != std::string::npos) {
    return where + " refused the password of user '" + bmc.user + "' (from " + bmc.password_file + ")";
  }
  if (err.find("unauthorized name") != std::string::npos) {
    return where + " does not know user '" + bmc.user + "'";
  }
  if (err.find("invalid authentication algorithm") != std::string::npos ||
      err.find("no matching cipher suite") != std::string::npos) {
    return where + " does not offer cipher suite " +
           (bmc.cipher_suite ? std::to_string(*bmc.cipher_suite) : std::string("(ipmitool's default)")) +
           ": set bmc cipher_suite (3 is the common one)";
  }
  if (err.find("Unable to establish") != std::string::npos && err.find("Loading IANA") == std::string::npos) {
    // without -v (sel): ipmitool does not say why
    return where + " opened no session (a wrong user, password or cipher suite, or no answer)";
  }
  if (err.find("Get Auth Capabilities error") != std::string::npos ||
      err.find("No response from remote controller") != std::string::npos) {
    return where + " does not answer";
  }
  std::vector<std::string> lines = Lines(err);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (it->find("rror") != std::string::npos || it->find("failed") != std::string::npos) {
      return where + ": " + Printable(*it, 200);
    }
  }
  return where + ": " + (lines.empty() ? std::string("ipmitool failed and said nothing") : Printable(lines.back(), 200));
}

}  // namespace clusterctl
