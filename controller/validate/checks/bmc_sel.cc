// bmc.sel: no critical entry in each selected host's BMC event log (SEL)
// since it was last cleared, read from the controller with `ipmitool sel
// list` (the power engine's code, as `clusterctl power sel`).
//
// Which entry is critical: one whose event, as ipmitool describes it (its
// ipmi_sel_desc.h texts: the sensor type's sensor-specific offsets and the
// threshold crossings), starts with an item of validate_bmc_sel_critical,
// compared without case and followed by nothing or a non-alphanumeric
// character (a vendor's "Uncorrectable ECC (CPU0_G1)" is one; "Correctable
// ECC" is not "Uncorrectable ECC"), and that is asserted: a deasserted entry
// records a recovery. An entry whose sensor (the SEL's name for it, such as
// "Power Supply #0x02", or the SDR's with `sel elist`) contains an item of
// validate_bmc_sel_ignore never fails. An event ipmitool has no text for
// (an empty column, an OEM record) is not judged critical: the SEL says
// nothing we can read about it. The critical entries are the failure's
// evidence; `ipmitool sel clear` on the BMC (after the repair) passes it.
#include <cctype>

#include "common/json_fields.h"
#include "common/strings.h"
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

constexpr const char* kCheck = "bmc.sel";
constexpr size_t kEvidenceLines = 20;

bool StartsWithWord(const std::string& text, const std::string& word) {
  if (word.empty() || text.size() < word.size() || AsciiLower(text.substr(0, word.size())) != AsciiLower(word)) {
    return false;
  }
  return text.size() == word.size() || !std::isalnum(static_cast<unsigned char>(text[word.size()]));
}

bool Contains(const std::string& text, const std::string& part) {
  return !part.empty() && AsciiLower(text).find(AsciiLower(part)) != std::string::npos;
}

bool Critical(const SelEntry& entry, const std::vector<std::string>& critical, const std::vector<std::string>& ignore) {
  if (AsciiLower(entry.direction) == "deasserted") return false;
  for (const std::string& sensor : ignore) {
    if (Contains(entry.sensor, sensor)) return false;
  }
  for (const std::string& event : critical) {
    if (StartsWithWord(entry.event, event)) return true;
  }
  return false;
}

std::string EntryText(const SelEntry& e) {
  return e.id + " | " + e.when + " | " + e.sensor + " | " + e.event + (e.direction.empty() ? "" : " | " + e.direction);
}

CheckResult Judge(const std::string& host, const std::vector<SelEntry>& sel, const nlohmann::json& vars) {
  const std::vector<std::string> critical = StringsAt(vars, "validate_bmc_sel_critical");
  const std::vector<std::string> ignore = StringsAt(vars, "validate_bmc_sel_ignore");
  std::vector<std::string> evidence;
  size_t count = 0;
  for (const SelEntry& entry : sel) {
    if (!Critical(entry, critical, ignore)) continue;
    if (++count <= kEvidenceLines) evidence.push_back(EntryText(entry));
  }
  const std::string entries = std::to_string(sel.size()) + " SEL entr" + (sel.size() == 1 ? "y" : "ies");
  if (count == 0) return Pass(kCheck, kNode, host, "0 critical", "0 critical", entries + ", none critical");
  return Fail(kCheck, kNode, host,
              std::to_string(count) + " critical of " + entries + " (first: " + evidence.front() +
                  "); clear the SEL once repaired",
              evidence, std::to_string(count) + " critical", "0 critical");
}

void RunPhase(ClusterRun& run) {
  std::vector<const Host*> hosts;
  for (const Host* host : HostsWithBmc(run, kCheck)) {
    if (run.FailureReported("bmc.reachable", host->name)) {
      run.Add(Skip(kCheck, kNode, host->name, "the BMC of " + host->name + " was not reached (bmc.reachable failed)"));
    } else {
      hosts.push_back(host);
    }
  }
  if (hosts.empty()) return;
  for (const PowerResult& answer : run.ThroughBmcs(hosts, PowerAction::kSel)) {
    const std::string& host = answer.host->name;
    if (!answer.ok) {
      run.Add(Fail(kCheck, kNode, host, "the SEL was not read: " + answer.message, {}, "unknown"));
    } else {
      run.Add(Judge(host, answer.sel, run.View(host).vars));
    }
  }
}

const CheckRegistration kBmcSel({.name = kCheck,
                                 .scope = kNode,
                                 .summary = "no critical entry in the BMC's event log (SEL) since it was cleared",
                                 .rank = 17,
                                 .cluster_phase = {.run = RunPhase},
                                 .out_of_band = true,
                                 .variables = R"(
validate_bmc_sel_critical:
  default: [Uncorrectable ECC, Parity, Critical Overtemperature, Uncorrectable machine check exception, IERR,
            Thermal Trip, FRB1/BIST failure, Failure detected, Power Supply AC lost,
            Upper Critical going high, Upper Non-recoverable going high, Lower Critical going low,
            Lower Non-recoverable going low, PCI PERR, PCI SERR, Bus Uncorrectable error, Bus Fatal Error]
  items: {type: string}
  description: "the events (ipmitool's text, matched at its start without case) whose asserted SEL entries fail bmc.sel: memory, processor, power supply, threshold and bus faults"
validate_bmc_sel_ignore:
  default: []
  items: {type: string}
  description: "sensors (part of the SEL's sensor column, such as \"Power Supply #0x02\" or an SDR name) whose entries never fail bmc.sel"
)"});

}  // namespace
}  // namespace clusterctl::checks
