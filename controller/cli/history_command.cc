#include "controller/cli/history_command.h"
#include <CLI/CLI.hpp>

#include "common/json_fields.h"
#include "common/json_text.h"
#include "controller/cli/exit_codes.h"
#include "controller/cli/validate_command.h"
#include "controller/engine/deploy_events.h"
#include "controller/output/table.h"

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

// A deploy's or plan's summary in words, only what happened: "6 hosts,
// unreachable: 6", never "failed: 0" for a run that failed. Other
// summaries as they were stored.
std::string SummaryText(const std::optional<std::string>& stored) {
  if (!stored) return "";
  const nlohmann::json s = nlohmann::json::parse(*stored, nullptr, false);
  if (!s.is_object() || !s.contains("hosts") || !s.contains("check")) return *stored;  // not a deploy's
  std::string text = std::to_string(CountAt(s, "hosts")) + " hosts";
  const std::pair<const char*, const char*> counts[] = {
      {"changed", FlagAt(s, "check") ? "would change" : "changed"}, {"failed", "failed steps"}, {"unreachable", "unreachable"}};
  for (const auto& [key, words] : counts) {
    if (CountAt(s, key) > 0) text += std::string(", ") + words + ": " + std::to_string(CountAt(s, key));
  }
  if (FlagAt(s, "stopped")) text += ", stopped";
  return text;
}

}  // namespace

int RunHistory(const HistoryOptions& options, const GlobalOptions& global, const Services& services) {
  std::optional<Inventory> inventory = LoadInventoryOrReport(options.inventory_path, services, false);
  if (!inventory) return kExitUsage;
  StatePaths paths = StatePathsFor(*inventory, global);
  auto store = StateStore::OpenForReading(paths, *services.filesystem);
  std::ostream& out = *services.out;
  if (!store.ok()) {
    if (store.status().code() == Status::Code::kNotFound) {
      out << (global.json ? "{\"runs\": []}\n" : "no history yet (" + paths.dir + ")\n");
      return kExitOk;
    }
    services.log->Error("clusterctl: " + store.status().message());
    return kExitFailed;
  }
  StateStore& state = **store;
  if (options.run_id > 0) {
    auto steps = state.StepsOfRun(options.run_id);
    auto events = state.EventsOfRun(options.run_id);
    auto validations = state.ValidationsOfRun(options.run_id);
    if (!steps.ok() || !events.ok() || !validations.ok()) {
      Status failed = !steps.ok() ? steps.status() : !events.ok() ? events.status() : validations.status();
      services.log->Error("clusterctl: " + failed.message());
      return kExitFailed;
    }
    std::vector<CheckResult> checks;
    for (const StoredValidation& v : *validations) {
      if (!options.host.empty() && v.subject != options.host) continue;
      checks.push_back(FromStoredValidation(v));
    }
    if (global.json) {
      nlohmann::json list = nlohmann::json::array();
      for (const StepRecord& s : *steps) {
        if (!options.host.empty() && s.host != options.host) continue;
        list.push_back({{"host", s.host}, {"role", s.role}, {"step", s.step_id}, {"status", ToString(s.status)},
                        {"changed", s.changed}, {"started_at", s.started_at}, {"finished_at", s.finished_at},
                        {"summary", s.output_summary}});
      }
      nlohmann::json results = nlohmann::json::array();
      for (const CheckResult& c : checks) results.push_back(c.ToJson());
      out << JsonText(nlohmann::json{{"run", options.run_id}, {"steps", list}, {"validations", results}, {"events", *events}}, 2)
          << "\n";
      return kExitOk;
    }
    TextTable table({"HOST", "STEP", "STATUS", "DURATION", "SUMMARY"});
    for (const StepRecord& s : *steps) {
      if (!options.host.empty() && s.host != options.host) continue;
      std::string summary = s.output_summary.substr(0, s.output_summary.find('\n'));
      table.AddRow({s.host, s.role + "/" + s.step_id, ToString(s.status), FormatDuration(s.finished_at - s.started_at),
                    summary});
    }
    out << "Run " << options.run_id << "\n";
    PrintExtraVars(state, options.run_id, out);
    if (!table.empty()) table.Print(out, "  ");
    if (!checks.empty()) PrintValidationTable(checks, out);
    for (const auto& e : *events) {
      out << "  " << FormatUtc(e["at"].get<int64_t>()) << " " << e["level"].get<std::string>() << " "
          << e["host"].get<std::string>() << " " << e["kind"].get<std::string>() << ": " << e["message"].get<std::string>() << "\n";
    }
    return kExitOk;
  }
  auto runs = state.ListRuns(options.limit);
  if (!runs.ok()) {
    services.log->Error("clusterctl: " + runs.status().message());
    return kExitFailed;
  }
  if (global.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const RunRecord& r : *runs) {
      list.push_back({{"id", r.id}, {"kind", r.kind}, {"command", r.command}, {"status", ToString(r.status)},
                      {"started_at", r.started_at},
                      {"finished_at", r.finished_at ? nlohmann::json(*r.finished_at) : nlohmann::json(nullptr)},
                      {"summary", r.summary ? nlohmann::json::parse(*r.summary, nullptr, false) : nlohmann::json(nullptr)},
                      {"extra_vars", ExtraVarsJson(r)}});
    }
    out << JsonText(nlohmann::json{{"runs", list}}, 2) << "\n";
    return kExitOk;
  }
  TextTable table({"RUN", "KIND", "STARTED", "DURATION", "STATUS", "SUMMARY"});
  for (const RunRecord& r : *runs) {
    table.AddRow({std::to_string(r.id), r.kind, FormatUtc(r.started_at),
                  r.finished_at ? FormatDuration(*r.finished_at - r.started_at) : "-", ToString(r.status),
                  SummaryText(r.summary)});
  }
  table.Print(out);
  return kExitOk;
}

void AddHistoryCommand(CLI::App& app, CommandValues& v) {
  HistoryOptions& o = v.Keep<HistoryOptions>();
  CLI::App* history = app.add_subcommand("history", "past runs, a run's steps, or a host's steps");
  AddInventoryArgument(history, v, o.inventory_path);
  history->add_option("--run", o.run_id, "show this run's steps and events (default: list the runs)");
  history->add_option("--host", o.host, "only this host (default: every host)")->type_name("HOST");
  history->add_option("-n,--runs", o.limit, "how many runs, newest first")->capture_default_str();
  history->add_flag("--json", v.options.json, "one JSON document");
  AddStateOption(history, v);
  history->callback([&v, &o] { v.exit_code = RunHistory(o, v.options, v.services); });
}

}  // namespace clusterctl
