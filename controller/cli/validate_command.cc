#include "controller/cli/validate_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <map>

#include "common/duration_text.h"
#include "common/json_text.h"
#include "common/strings.h"
#include "controller/cli/exit_codes.h"
#include "controller/cli/option_values.h"
#include "controller/output/table.h"
#include "controller/output/terminal_text.h"
#include "controller/validate/catalogue.h"
#include "controller/validate/check_spec.h"
#include "controller/validate/peer_judgement.h"
#include "controller/validate/verdicts.h"
#include "controller/run/run_pipeline.h"
#include "controller/validate/validation_run.h"
#include "inventory/hostlist.h"

namespace clusterctl {
namespace {

// The subject's name inside a detail, replaced so rows of many hosts group.
constexpr const char* kSubjectMark = "\x01";

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

struct Row {
  std::vector<std::string> checks;
  CheckOutcome outcome = CheckOutcome::kPass;
  std::string threshold, detail;
  std::vector<std::string> subjects;
  std::vector<std::string> measured;
};

// "a, b, c" for up to three, else the first two and how many in all.
std::string ListShort(const std::vector<std::string>& items, const char* noun) {
  if (items.size() <= 3) return Join(items, ", ");
  return Join({items[0], items[1]}, ", ") + ", ... (" + std::to_string(items.size()) + " " + noun + ")";
}

// Skips with one cause (the same detail on the same hosts: "no NVIDIA GPUs
// on the PCI bus of node[02-25]" for every GPU check) become one row naming
// every check they skipped, instead of a row per check.
std::vector<Row> CollapseSkipsOfOneCause(std::vector<Row> rows) {
  std::vector<Row> out;
  std::map<std::string, size_t> cause;
  for (Row& row : rows) {
    if (row.outcome != CheckOutcome::kSkip || !row.measured.empty()) {
      out.push_back(std::move(row));
      continue;
    }
    const std::string key = row.threshold + "\n" + row.detail + "\n" + Join(row.subjects, ",");
    auto [it, added] = cause.emplace(key, out.size());
    if (added) {
      out.push_back(std::move(row));
    } else {
      out[it->second].checks.push_back(row.checks.front());
    }
  }
  return out;
}

// The failures that only say a host could not be reached ("not checked:
// node03 is unreachable"): a failed check on a host whose `reachable` check
// failed, with nothing measured. Counted on the host's `reachable` row
// instead of listed, so five unreachable hosts are five rows, not 130.
struct Unreachable {
  std::map<std::string, int> blocked;  // host -> checks not run there
  bool Blocked(const CheckResult& r) const {
    return r.check != "reachable" && r.outcome == CheckOutcome::kFail && r.scope != CheckScope::kCluster &&
           (r.measured.empty() || r.measured == "unknown") && blocked.count(r.subject) != 0;
  }
  // The `reachable` failure's detail with the count of the checks it blocked.
  std::string Detail(const CheckResult& r) const {
    auto it = blocked.find(r.subject);
    if (r.check != "reachable" || it == blocked.end() || it->second == 0) return r.detail;
    return r.detail + " (" + std::to_string(it->second) + " check" + (it->second == 1 ? "" : "s") + " not run)";
  }
};

Unreachable FindUnreachable(const std::vector<CheckResult>& results) {
  Unreachable unreachable;
  for (const CheckResult& r : results) {
    if (r.check == "reachable" && r.outcome == CheckOutcome::kFail) unreachable.blocked[r.subject] = 0;
  }
  for (const CheckResult& r : results) {
    if (unreachable.Blocked(r)) ++unreachable.blocked[r.subject];
  }
  return unreachable;
}

}  // namespace

const std::vector<std::string>& AllValidationCheckNames() { return AllCheckNames(); }

size_t CountNotRunOnUnreachable(const std::vector<CheckResult>& results) {
  size_t count = 0;
  for (const auto& [host, blocked] : FindUnreachable(results).blocked) count += blocked;
  return count;
}

void PrintValidationTable(const std::vector<CheckResult>& results, std::ostream& out, bool wide) {
  // Rows: results of one check with the same outcome, threshold and detail
  // (the subject's own name masked), in the order the checks came.
  std::vector<Row> rows;
  std::map<std::string, size_t> index;
  const Unreachable unreachable = wide ? Unreachable{} : FindUnreachable(results);
  for (const CheckResult& r : results) {
    if (unreachable.Blocked(r)) continue;
    bool node = r.scope == CheckScope::kNode;
    std::string detail = node ? ReplaceAll(unreachable.Detail(r), r.subject, kSubjectMark) : unreachable.Detail(r);
    std::string key = r.check + "\n" + ToString(r.outcome) + "\n" + r.threshold + "\n" + detail +
                      (node ? "" : "\n" + r.subject);
    auto [it, added] = index.emplace(key, rows.size());
    if (added) rows.push_back({{r.check}, r.outcome, r.threshold, detail, {}, {}});
    Row& row = rows[it->second];
    row.subjects.push_back(r.subject);
    if (!r.measured.empty() && std::find(row.measured.begin(), row.measured.end(), r.measured) == row.measured.end()) {
      row.measured.push_back(r.measured);
    }
  }
  TextTable table({"CHECK", "RESULT", "ON", "MEASURED", "THRESHOLD", "DETAIL"});
  for (const Row& row : CollapseSkipsOfOneCause(std::move(rows))) {
    std::string subjects = CollapseHostList(row.subjects);
    table.AddRow({ListShort(row.checks, "checks"), ToString(row.outcome), subjects, ListShort(row.measured, "values"),
                  row.threshold, ReplaceAll(row.detail, kSubjectMark, subjects)});
  }
  table.Print(out);
  bool header = false;
  for (const CheckResult& r : results) {
    if (r.outcome != CheckOutcome::kFail || unreachable.Blocked(r)) continue;
    if (!header) out << "\nFailures:\n";
    header = true;
    out << "  " << r.check << " on " << r.subject << ": " << TerminalText(unreachable.Detail(r), TextShape::kOneLine) << "\n";
    for (const std::string& line : r.evidence) out << "      " << TerminalText(line, TextShape::kOneLine) << "\n";
  }
}

void PrintMeasurementTable(const std::vector<CheckResult>& results, std::ostream& out) {
  std::vector<const CheckResult*> rows;
  for (const CheckResult& r : results) {
    const CheckSpec* spec = FindCheckSpec(r.check);
    if (spec != nullptr && spec->level == CheckLevel::kAcceptance && r.scope == CheckScope::kNode) rows.push_back(&r);
  }
  if (rows.empty()) return;
  std::stable_sort(rows.begin(), rows.end(), [](const CheckResult* a, const CheckResult* b) { return a->subject < b->subject; });
  TextTable table({"NODE", "CHECK", "RESULT", "MEASURED", "THRESHOLD"});
  for (const CheckResult* r : rows) table.AddRow({r->subject, r->check, ToString(r->outcome), r->measured, r->threshold});
  out << "\nAcceptance measurements per node:\n";
  table.Print(out);
}

namespace {

// The request the options make; --duration is the acceptance checks'
// variable for this run (validate_acceptance_seconds, over the inventory's).
RunRequest RequestOf(const ValidateOptions& options, std::vector<std::string>& extra_vars) {
  RunRequest request;
  request.kind = RunKind::kValidate;
  request.limit = options.remote.limit;
  request.checks = options.checks;
  request.deadline = std::chrono::seconds(options.deadline_s);
  request.level = options.level == "acceptance" ? CheckLevel::kAcceptance : CheckLevel::kFunctional;
  request.drain_failed = options.drain_failed;
  extra_vars = options.remote.extra_vars;
  if (options.duration_s > 0) {
    extra_vars.push_back(std::string(kAcceptanceSecondsVariable) + "=" + std::to_string(options.duration_s));
  }
  return request;
}

void PrintSlurmActions(const std::vector<std::string>& lines, std::ostream& out) {
  if (lines.empty()) return;
  out << "\nSlurm (--drain-failed):\n";
  for (const std::string& line : lines) out << "  " << TerminalText(line, TextShape::kOneLine) << "\n";
}

}  // namespace

int RunValidate(const ValidateOptions& options, const GlobalOptions& global, const Services& services) {
  Logger& log = *services.log;
  std::vector<std::string> extra_vars;
  RunRequest request = RequestOf(options, extra_vars);
  Diagnostics unused;
  if (auto problems = CheckRunRequest(request, nullptr); !problems.empty()) {
    ReportRunProblems(problems, unused, log);
    return kExitUsage;
  }
  if (options.duration_s > 0 && request.level != CheckLevel::kAcceptance) {
    log.Error("clusterctl validate: --duration times the acceptance measurements (--level acceptance)");
    return kExitUsage;
  }
  // The checks' variables are checked with the inventory's, before anything is contacted or recorded.
  // --duration's variable is an extra var like -e's: recorded with the run (history --run).
  std::optional<Inventory> inventory = LoadCheckedInventoryOrReport(options.remote.inventory_path, extra_vars, services);
  if (!inventory) return kExitUsage;
  int exit_code = 0;
  auto command = RemoteCommand::Prepare(request, std::move(*inventory), nullptr, options.remote, global, services,
                                        exit_code);
  if (!command) return exit_code;
  const Clock& clock = *services.clock;
  auto started = clock.Monotonic();
  ValidationOutcome outcome =
      Validate(command->run(), command->sessions(), clock, [&log](const std::string& line) { log.Info(line); });
  double seconds = std::chrono::duration<double>(clock.Monotonic() - started).count();
  CompletedRun completed = CompleteValidation(command->session(), outcome);

  std::ostream& out = *services.out;
  const nlohmann::json& summary = completed.summary;
  if (global.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const CheckResult& r : outcome.results) list.push_back(r.ToJson());
    out << JsonText(nlohmann::json{{"cluster", command->inventory().cluster_name},
                                   {"run", command->run_id()},
                                   {"seconds", seconds},
                                   {"level", options.level},
                                   {"summary", summary},
                                   {"results", list},
                                   {"slurm_actions", outcome.slurm_actions}},
                    2)
        << "\n";
  } else {
    const bool wide = global.output == "wide";
    PrintValidationTable(outcome.results, out, wide);
    PrintMeasurementTable(outcome.results, out);
    PrintSlurmActions(outcome.slurm_actions, out);
    char took[32];
    std::snprintf(took, sizeof took, "%.1f", seconds);
    out << "\nvalidate (run " << command->run_id() << ", " << took << " s): " << summary["pass"] << " passed, "
        << summary["fail"] << " failed, " << summary["skip"] << " skipped";
    if (size_t not_run = CountNotRunOnUnreachable(outcome.results); not_run > 0 && !wide) {
      out << " (" << not_run << " of the failures: checks not run on unreachable hosts; -o wide lists them)";
    }
    out << "\n";
  }
  command->Report(completed, outcome.probe_results, /*print_failures=*/false);
  return summary["fail"].get<int>() > 0 ? kExitFailed : kExitOk;
}

void AddValidateCommand(CLI::App& app, CommandValues& v) {
  ValidateOptions& o = v.Keep<ValidateOptions>();
  CLI::App* validate =
      app.add_subcommand("validate", "prove the cluster works: checks with thresholds, exit 1 on any failure");
  AddRemoteOptions(validate, v, o.remote);
  AddExtraVarsOption(validate, o.remote);
  validate->add_option("--checks", o.checks, "only these checks or prefixes (comma-separated; default: all): " +
                                                 Join(AllValidationCheckNames(), ", "))
      ->delimiter(',');
  validate->add_option("--deadline", o.deadline_s, "time for the whole run (90, 60s, 15m, 1h; 10s to 1d)")
      ->type_name("DURATION")
      ->transform(DurationSeconds(10, 86400))
      ->default_str(FormatDurationSeconds(o.deadline_s));
  validate->add_option("--level", o.level, "functional (default): prove the cluster works; acceptance: then measure "
                                           "every node against floors and its peers (iperf3, fio)")
      ->check(CLI::IsMember({"functional", "acceptance"}))
      ->default_str("functional");
  validate->add_option("--duration", o.duration_s, "acceptance: how long each measurement runs (30s, 10m, 2h; "
                                                   "default validate_acceptance_seconds, 30 s)")
      ->type_name("DURATION")
      ->transform(DurationSeconds(1, 86400));
  validate->add_flag("--drain-failed", o.drain_failed,
                     "acceptance: drain in Slurm each compute node a measurement failed; resume the ones it drained that pass");
  validate->add_option("-o,--output", v.options.output,
                       "table: a host that cannot be reached is one row, the checks it blocks counted; wide: every "
                       "check's row; json: as --json")
      ->type_name("FORMAT")
      ->check(CLI::IsMember({"table", "wide", "json"}))
      ->capture_default_str();
  validate->callback([&v, &o] {
    if (v.options.output == "json") v.options.json = true;
    v.exit_code = RunValidate(o, v.options, v.services);
  });
}

}  // namespace clusterctl
