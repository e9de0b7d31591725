#include "controller/cli/facts_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <optional>

#include "common/json_text.h"
#include "common/nvidia_facts.h"
#include "common/strings.h"
#include "controller/output/table.h"

namespace clusterctl {
namespace {

std::string Gib(long long mib) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f GiB", static_cast<double>(mib) / 1024.0);
  return buffer;
}

// Node facts are the node's word: any field may be missing or of any type.
// Each column shows what is there; "?" marks a field missing, and a value
// of a type not understood is shown as JSON followed by "?".
const nlohmann::json* Field(const nlohmann::json& section, const char* key) {
  if (!section.is_object()) return nullptr;
  auto it = section.find(key);
  return it == section.end() ? nullptr : &*it;
}

std::string NotUnderstood(const nlohmann::json& value) { return Printable(JsonText(value), 24) + "?"; }

std::string TextOf(const nlohmann::json* value, const std::string& missing = "?") {
  if (!value) return missing;
  return value->is_string() ? value->get<std::string>() : NotUnderstood(*value);
}

std::optional<int64_t> CountOf(const nlohmann::json* value) {
  if (!value || !value->is_number_integer()) return std::nullopt;
  const int64_t n = value->is_number_unsigned() ? static_cast<int64_t>(std::min<uint64_t>(value->get<uint64_t>(), INT64_MAX))
                                                : value->get<int64_t>();
  return n >= 0 ? std::optional<int64_t>(n) : std::nullopt;
}

std::string CountText(const nlohmann::json* value) {
  if (!value) return "?";
  auto n = CountOf(value);
  return n ? std::to_string(*n) : NotUnderstood(*value);
}

// "id version" of a section (os, kernel); "?" without it.
std::string Pair(const nlohmann::json& f, const char* section, const char* first, const char* second) {
  const nlohmann::json* s = Field(f, section);
  if (!s) return "?";
  if (!s->is_object()) return NotUnderstood(*s);
  return TextOf(Field(*s, first)) + " " + TextOf(Field(*s, second));
}

std::string CpuText(const nlohmann::json& f) {
  const nlohmann::json* c = Field(f, "cpu");
  if (!c) return "?";
  if (!c->is_object()) return NotUnderstood(*c);
  return CountText(Field(*c, "cpus")) + " (" + CountText(Field(*c, "sockets")) + "s x " +
         CountText(Field(*c, "cores_per_socket")) + "c x " + CountText(Field(*c, "threads_per_core")) + "t) " +
         TextOf(Field(*c, "model"), "");
}

std::string MemoryText(const nlohmann::json& f) {
  const nlohmann::json* m = Field(f, "memory");
  if (!m) return "?";
  const nlohmann::json* total = Field(*m, "total_mib");
  auto mib = CountOf(total);
  if (mib) return Gib(*mib);
  return total ? NotUnderstood(*total) : NotUnderstood(*m);
}

// "8x MODEL" for a count of devices; "-" for none.
std::string DevicesText(const nlohmann::json* count, const std::string& model) {
  if (!count) return "-";
  auto n = CountOf(count);
  if (!n) return NotUnderstood(*count);
  return *n > 0 ? std::to_string(*n) + "x " + model : "-";
}

std::string GpusText(const nlohmann::json& f) {
  const nlohmann::json* pci = Field(f, "pci");
  if (pci && !pci->is_object()) return NotUnderstood(*pci);
  return pci ? DevicesText(Field(*pci, "gpu_count"), TextOf(Field(*pci, "gpu_model"), "")) : "-";
}

std::string HcasText(const nlohmann::json& f) {
  const nlohmann::json* pci = Field(f, "pci");
  if (!pci || !pci->is_object()) return "-";
  const nlohmann::json* hcas = Field(*pci, "hcas");
  const nlohmann::json* first = hcas && hcas->is_array() && !hcas->empty() ? &(*hcas)[0] : nullptr;
  return DevicesText(Field(*pci, "hca_count"), first ? TextOf(Field(*first, "model")) : "?");
}

std::string IbText(const nlohmann::json& f) {
  const nlohmann::json* ports = Field(f, "ib_ports");
  if (!ports || (ports->is_array() && ports->empty())) return "-";
  if (!ports->is_array()) return NotUnderstood(*ports);
  int active = 0;
  double rate = 0;
  for (const auto& port : *ports) {
    const nlohmann::json* state = Field(port, "state");
    const nlohmann::json* gbps = Field(port, "rate_gbps");
    if (state && *state == "ACTIVE") ++active;
    if (gbps && gbps->is_number()) rate = std::max(rate, gbps->get<double>());
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%d/%zu active, %.0f Gb/s", active, ports->size(), rate);
  return buffer;
}

// The testbed's simulated module is marked, as everywhere it shows.
std::string DriverText(const nlohmann::json& f) {
  const nlohmann::json* driver = Field(f, "nvidia_driver");
  if (!driver || driver->is_null()) return "-";
  return TextOf(driver) + (SimulatedNvidiaDriver(f) ? " (simulated)" : "");
}

}  // namespace

std::vector<std::string> FactsRow(const std::string& host, const nlohmann::json& f) {
  return {host,         Pair(f, "os", "id", "version_id"), Pair(f, "kernel", "release", "arch"),
          CpuText(f),   MemoryText(f),                      GpusText(f),
          DriverText(f), HcasText(f),                       IbText(f)};
}

void PrintFactsTable(const std::vector<std::pair<std::string, nlohmann::json>>& facts, std::ostream& out) {
  TextTable table({"HOST", "OS", "KERNEL", "CPUS", "MEMORY", "GPUS", "DRIVER", "HCAS", "IB PORTS"});
  for (const auto& [host, f] : facts) table.AddRow(FactsRow(host, f));
  if (!table.empty()) table.Print(out);
}

int RunFacts(const RemoteCommandOptions& options, const GlobalOptions& global, const Services& services) {
  RunRequest request;
  request.kind = RunKind::kFacts;
  request.limit = options.limit;
  int exit_code = 0;
  auto command = RemoteCommand::Prepare(request, options, global, services, exit_code);
  if (!command) return exit_code;
  std::vector<HostResult> results = GatherFacts(command->run(), command->sessions(), *services.clock);
  CompletedRun completed = CompleteFacts(command->session(), results);

  std::ostream& out = *services.out;
  if (global.json) {
    nlohmann::json hosts = nlohmann::json::object();
    for (const HostResult& r : results) {
      hosts[r.host->name] = r.state == HostResult::State::kOk
                                ? nlohmann::json{{"state", "ok"}, {"facts", r.data}}
                                : nlohmann::json{{"state", ToString(r.state)}, {"error", r.error}};
    }
    out << JsonText(nlohmann::json{{"cluster", command->inventory().cluster_name}, {"hosts", hosts}}, 2) << "\n";
  } else {
    std::vector<std::pair<std::string, nlohmann::json>> gathered;
    for (const HostResult& r : results) {
      if (r.state == HostResult::State::kOk) gathered.emplace_back(r.host->name, r.data);
    }
    PrintFactsTable(gathered, out);
  }
  return command->Report(completed, results);
}

void AddFactsCommand(CLI::App& app, CommandValues& v) {
  RemoteCommandOptions& remote = v.Keep<RemoteCommandOptions>();
  CLI::App* facts = app.add_subcommand("facts", "gather and store facts of every selected host");
  AddRemoteOptions(facts, v, remote);
  facts->callback([&v, &remote] { v.exit_code = RunFacts(remote, v.options, v.services); });
}

}  // namespace clusterctl
