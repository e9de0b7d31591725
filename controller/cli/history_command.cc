#include "controller/cli/history_command.h"
#include <CLI/CLI.hpp>

#include <algorithm>
#include <limits>
#include <map>

#include "common/json_fields.h"
#include "common/json_text.h"
#include "common/strings.h"
#include "controller/cli/exit_codes.h"
#include "controller/cli/validate_command.h"
#include "controller/engine/deploy_events.h"
#include "controller/output/table.h"
#include "controller/output/terminal_text.h"
#include "inventory/hostlist.h"

namespace clusterctl {
namespace {

// "  extra vars: -e a=1 -e b=false", when the run was given any.
void PrintExtraVars(RunRecords& records, int64_t run_id, std::ostream& out) {
  auto runs = records.ListRuns(1, run_id);
  if (!runs.ok() || runs->empty() || !runs->front().extra_vars) return;
  const nlohmann::json vars = nlohmann::json::parse(*runs->front().extra_vars, nullptr, false);
  if (!vars.is_object() || vars.empty()) return;
  out << "  extra vars:";
  for (const auto& [key, value] : vars.items()) out << " -e " << key << "=" << JsonText(value);
  out << "\n";
}

nlohmann::json ExtraVarsJson(const RunRecord& run) {
  return run.extra_vars ? nlohmann::json::parse(*run.extra_vars, nullptr, false) : nlohmann::json(nullptr);
}

// "10 passed, 2 failed, 0 skipped; failed: gpu.ecc on gpu[01-02]": a validate run's summary.
std::string ValidateSummaryText(const nlohmann::json& s) {
  std::string text = std::to_string(CountAt(s, "pass")) + " passed, " + std::to_string(CountAt(s, "fail")) + " failed, " +
                     std::to_string(CountAt(s, "skip")) + " skipped";
  auto failed = s.find("failed");
  if (failed == s.end() || !failed->is_array() || failed->empty()) return text;
  std::map<std::string, std::vector<std::string>> subjects;  // check -> subjects
  for (const nlohmann::json& f : *failed) {
    if (f.is_object()) subjects[TextAt(f, "check")].push_back(TextAt(f, "subject"));
  }
  std::vector<std::string> parts;
  for (const auto& [check, names] : subjects) parts.push_back(check + " on " + CollapseHostList(names));
  return TerminalText(text + "; failed: " + Join(parts, ", "), TextShape::kOneLine);
}

// Any other summary's scalar fields as words ("exit code: 7", "hosts: 6"),
// never raw JSON.
std::string FieldsText(const nlohmann::json& s) {
  std::vector<std::string> parts;
  for (const auto& [key, value] : s.items()) {
    if (!value.is_primitive() || value.is_null()) continue;
    std::string words = key;
    std::replace(words.begin(), words.end(), '_', ' ');
    parts.push_back(words + ": " + (value.is_string() ? value.get<std::string>() : JsonText(value)));
  }
  return TerminalText(Join(parts, ", "), TextShape::kOneLine);
}

// A run's summary in words, only what happened: "6 hosts, unreachable: 6",
// never "failed: 0" for a run that failed; "10 passed, 2 failed, 0 skipped" for a validate.
std::string SummaryText(const std::optional<std::string>& stored) {
  if (!stored) return "";
  const nlohmann::json s = nlohmann::json::parse(*stored, nullptr, false);
  if (!s.is_object()) return TerminalText(*stored, TextShape::kOneLine);
  if (s.contains("pass")) return ValidateSummaryText(s);
  if (!s.contains("hosts") || !s.contains("check")) return FieldsText(s);
  std::string text = std::to_string(CountAt(s, "hosts")) + " hosts";
  const std::pair<const char*, const char*> counts[] = {
      {"changed", FlagAt(s, "check") ? "would change" : "changed"}, {"failed", "failed steps"}, {"unreachable", "unreachable"}};
  for (const auto& [key, words] : counts) {
    if (CountAt(s, key) > 0) text += std::string(", ") + words + ": " + std::to_string(CountAt(s, key));
  }
  if (FlagAt(s, "stopped")) text += ", stopped";
  return text;
}

// What one run recorded, `host`'s alone when it is not "".
struct RunDetail {
  std::vector<StepRecord> steps;
  std::vector<CheckResult> checks;
  std::vector<nlohmann::json> events;
};

Result<RunDetail> ReadRunDetail(StateStore& state, int64_t run_id, const std::string& host) {
  auto steps = state.StepsOfRun(run_id);
  if (!steps.ok()) return steps.status();
  auto events = state.EventsOfRun(run_id);
  if (!events.ok()) return events.status();
  auto validations = state.ValidationsOfRun(run_id);
  if (!validations.ok()) return validations.status();
  RunDetail detail;
  for (StepRecord& s : *steps) {
    if (host.empty() || s.host == host) detail.steps.push_back(std::move(s));
  }
  for (const StoredValidation& v : *validations) {
    if (host.empty() || v.subject == host) detail.checks.push_back(FromStoredValidation(v));
  }
  for (nlohmann::json& e : *events) {
    if (host.empty() || TextAt(e, "host") == host) detail.events.push_back(std::move(e));
  }
  return detail;
}

void PrintRunDetail(StateStore& state, int64_t run_id, const RunDetail& detail, bool json, std::ostream& out) {
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const StepRecord& s : detail.steps) {
      list.push_back({{"host", s.host}, {"role", s.role}, {"step", s.step_id}, {"status", ToString(s.status)},
                      {"changed", s.changed}, {"started_at", s.started_at}, {"finished_at", s.finished_at},
                      {"summary", s.output_summary}});
    }
    nlohmann::json results = nlohmann::json::array();
    for (const CheckResult& c : detail.checks) results.push_back(c.ToJson());
    out << JsonText(nlohmann::json{{"run", run_id}, {"steps", list}, {"validations", results}, {"events", detail.events}}, 2)
        << "\n";
    return;
  }
  TextTable table({"HOST", "STEP", "STATUS", "DURATION", "SUMMARY"});
  for (const StepRecord& s : detail.steps) {
    std::string summary = s.output_summary.substr(0, s.output_summary.find('\n'));
    table.AddRow({s.host, s.role + "/" + s.step_id, ToString(s.status), FormatDuration(s.finished_at - s.started_at),
                  summary});
  }
  out << "Run " << run_id << "\n";
  PrintExtraVars(state, run_id, out);
  if (!table.empty()) table.Print(out, "  ");
  if (!detail.checks.empty()) PrintValidationTable(detail.checks, out);
  for (const auto& e : detail.events) {
    out << "  " << FormatUtc(e["at"].get<int64_t>()) << " " << TextAt(e, "level") << " " << TextAt(e, "host") << " "
        << TextAt(e, "kind") << ": " << TextAt(e, "message") << "\n";
  }
}

// The newest `limit` runs; with `host`, those that recorded anything about it.
Result<std::vector<RunRecord>> RunsToList(StateStore& state, int limit, const std::string& host) {
  if (host.empty()) return state.ListRuns(limit);
  auto all = state.ListRuns(std::numeric_limits<int>::max());
  if (!all.ok()) return all.status();
  std::vector<RunRecord> runs;
  for (RunRecord& r : *all) {
    if (static_cast<int>(runs.size()) >= limit) break;
    auto detail = ReadRunDetail(state, r.id, host);
    if (!detail.ok()) return detail.status();
    if (!detail->steps.empty() || !detail->checks.empty() || !detail->events.empty()) runs.push_back(std::move(r));
  }
  return runs;
}

void PrintRunList(const std::vector<RunRecord>& runs, bool json, std::ostream& out) {
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const RunRecord& r : runs) {
      list.push_back({{"id", r.id}, {"kind", r.kind}, {"command", r.command}, {"status", ToString(r.status)},
                      {"started_at", r.started_at},
                      {"finished_at", r.finished_at ? nlohmann::json(*r.finished_at) : nlohmann::json(nullptr)},
                      {"summary", r.summary ? nlohmann::json::parse(*r.summary, nullptr, false) : nlohmann::json(nullptr)},
                      {"extra_vars", ExtraVarsJson(r)}});
    }
    out << JsonText(nlohmann::json{{"runs", list}}, 2) << "\n";
    return;
  }
  TextTable table({"RUN", "KIND", "STARTED", "DURATION", "STATUS", "SUMMARY"});
  for (const RunRecord& r : runs) {
    table.AddRow({std::to_string(r.id), r.kind, FormatUtc(r.started_at),
                  r.finished_at ? FormatDuration(*r.finished_at - r.started_at) : "-", ToString(r.status),
                  SummaryText(r.summary)});
  }
  table.Print(out);
}

// A usage error for a --host that is not in the inventory, or "".
std::string UnknownHost(const Inventory& inventory, const std::string& host) {
  if (host.empty() || inventory.FindHost(host)) return "";
  std::vector<std::string> names;
  for (const Host& h : inventory.hosts) names.push_back(h.name);
  return "clusterctl history: --host " + Printable(host, 40) + ": no such host in " + inventory.source_file +
         DidYouMean(host, names);
}

}  // namespace

int RunHistory(const HistoryOptions& options, const GlobalOptions& global, const Services& services) {
  std::optional<Inventory> inventory = LoadInventoryOrReport(options.inventory_path, services, false);
  if (!inventory) return kExitUsage;
  if (std::string unknown = UnknownHost(*inventory, options.host); !unknown.empty()) {
    services.log->Error(unknown);
    return kExitUsage;
  }
  StatePaths paths = StatePathsFor(*inventory, global);
  auto store = StateStore::OpenForReading(paths, *services.filesystem);
  std::ostream& out = *services.out;
  if (!store.ok() && store.status().code() == Status::Code::kNotFound && options.run_id == 0) {
    out << (global.json ? "{\"runs\": []}\n" : "no history yet (" + paths.dir + ")\n");
    return kExitOk;
  }
  if (!store.ok() && store.status().code() != Status::Code::kNotFound) {
    services.log->Error("clusterctl: " + store.status().message());
    return kExitFailed;
  }
  if (options.run_id != 0) {
    auto run = store.ok() ? (*store)->ListRuns(1, options.run_id) : Result<std::vector<RunRecord>>(std::vector<RunRecord>{});
    if (run.ok() && run->empty()) {
      services.log->Error("clusterctl history: no run " + std::to_string(options.run_id) + " in " + paths.dir +
                          " ('clusterctl history' lists the runs)");
      return kExitUsage;
    }
    auto detail = run.ok() ? ReadRunDetail(**store, options.run_id, options.host) : Result<RunDetail>(run.status());
    if (!detail.ok()) {
      services.log->Error("clusterctl: " + detail.status().message());
      return kExitFailed;
    }
    PrintRunDetail(**store, options.run_id, *detail, global.json, out);
    return kExitOk;
  }
  auto runs = RunsToList(**store, options.limit, options.host);
  if (!runs.ok()) {
    services.log->Error("clusterctl: " + runs.status().message());
    return kExitFailed;
  }
  PrintRunList(*runs, global.json, out);
  return kExitOk;
}

void AddHistoryCommand(CLI::App& app, CommandValues& v) {
  HistoryOptions& o = v.Keep<HistoryOptions>();
  CLI::App* history = app.add_subcommand("history", "past runs, a run's steps, or a host's steps");
  AddInventoryArgument(history, v, o.inventory_path);
  history->add_option("--run", o.run_id, "show this run's steps and events (default: list the runs)");
  history->add_option("--host", o.host, "only this host: its steps, checks and events, or the runs that touched it (default: every host)")->type_name("HOST");
  history->add_option("-n,--runs", o.limit, "how many runs, newest first")->capture_default_str();
  history->add_flag("--json", v.options.json, "one JSON document");
  AddStateOption(history, v);
  history->callback([&v, &o] { v.exit_code = RunHistory(o, v.options, v.services); });
}

}  // namespace clusterctl
