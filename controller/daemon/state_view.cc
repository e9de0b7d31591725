#include "controller/daemon/state_view.h"

#include "common/nvidia_facts.h"
#include "controller/engine/deploy_events.h"

namespace clusterctl {
namespace {

template <typename T>
const T* Field(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : it->template get_ptr<const T*>();
}

}  // namespace

nlohmann::json SummarizeFacts(const nlohmann::json& facts) {
  nlohmann::json out = nlohmann::json::object();
  const nlohmann::json empty = nlohmann::json::object();
  auto sub = [&](const char* key) -> const nlohmann::json& {
    auto it = facts.is_object() ? facts.find(key) : facts.end();
    return facts.is_object() && it != facts.end() && it->is_object() ? *it : empty;
  };
  if (auto* name = Field<std::string>(sub("os"), "pretty_name")) out["os"] = *name;
  if (auto* release = Field<std::string>(sub("kernel"), "release")) out["kernel"] = *release;
  if (auto* cpus = Field<int64_t>(sub("cpu"), "cpus")) out["cpus"] = *cpus;
  if (auto* mib = Field<int64_t>(sub("memory"), "total_mib")) out["memory_mib"] = *mib;
  if (auto* gpus = Field<uint64_t>(sub("pci"), "gpu_count")) out["gpus"] = *gpus;
  if (auto* model = Field<std::string>(sub("pci"), "gpu_model"); model && !model->empty()) out["gpu_model"] = *model;
  if (auto* driver = Field<std::string>(facts, "nvidia_driver")) out["nvidia_driver"] = *driver;
  if (SimulatedNvidiaDriver(facts)) out["nvidia_driver_simulated"] = true;  // the testbed's, marked
  return out;
}

nlohmann::json RunToJson(const RunRecord& run) {
  nlohmann::json summary = nullptr;
  if (run.summary) summary = nlohmann::json::parse(*run.summary, nullptr, /*allow_exceptions=*/false);
  if (summary.is_discarded()) summary = *run.summary;
  return {{"id", run.id},
          {"kind", run.kind},
          {"command", run.command},
          {"controller", run.controller_host},
          {"pid", run.pid},
          {"started_at", run.started_at},
          {"finished_at", run.finished_at ? nlohmann::json(*run.finished_at) : nlohmann::json(nullptr)},
          {"status", ToString(run.status)},
          {"summary", summary}};
}

std::shared_ptr<const StateSnapshot> StateView::Get() {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = clock_.Monotonic();
  if (!snapshot_ || now - read_at_ >= max_age_) {
    snapshot_ = Read();
    read_at_ = now;
  }
  return snapshot_;
}

void StateView::Invalidate() {
  std::lock_guard<std::mutex> lock(mutex_);
  snapshot_.reset();
}

std::shared_ptr<const StateSnapshot> StateView::Read() const {
  auto snapshot = std::make_shared<StateSnapshot>();
  snapshot->read_at_ms = clock_.NowMs();
  auto store = StateStore::OpenForReading(paths_, probe_);
  if (!store.ok()) {
    if (store.status().code() != Status::Code::kNotFound) snapshot->error = store.status().message();
    return snapshot;
  }
  snapshot->has_state = true;
  auto hosts = (*store)->ListHosts();
  auto validations = (*store)->LatestValidationPerNode();
  auto cluster_validations = (*store)->LatestClusterValidations();
  auto facts = (*store)->LoadFacts();
  auto runs = (*store)->ListRuns(kRecentRuns);
  for (const Status* s : {&hosts.status(), &validations.status(), &cluster_validations.status(), &facts.status(),
                          &runs.status()}) {
    if (!s->ok()) {
      snapshot->error = "reading " + paths_.database() + ": " + s->message();
      return snapshot;
    }
  }
  snapshot->hosts = std::move(hosts).value();
  snapshot->validations = std::move(validations).value();
  snapshot->cluster_validations = std::move(cluster_validations).value();
  for (const auto& [host, stored] : *facts) snapshot->facts[host] = SummarizeFacts(stored.facts);
  snapshot->runs = std::move(runs).value();
  return snapshot;
}

Result<nlohmann::json> StateView::RunDetail(int64_t run_id) const {
  auto store = StateStore::OpenForReading(paths_, probe_);
  if (!store.ok()) return store.status();
  auto runs = run_id > 0 ? (*store)->ListRuns(1, run_id) : Result<std::vector<RunRecord>>(std::vector<RunRecord>{});
  if (!runs.ok()) return runs.status();
  if (runs->empty()) return Status::NotFound("no run " + std::to_string(run_id));
  nlohmann::json run = RunToJson(runs->front());
  auto steps = (*store)->StepsOfRun(run_id);
  auto events = (*store)->EventsOfRun(run_id);
  if (!steps.ok()) return steps.status();
  if (!events.ok()) return events.status();
  nlohmann::json step_list = nlohmann::json::array();
  for (const StepRecord& s : *steps) {
    step_list.push_back({{"host", s.host}, {"role", s.role}, {"step", s.step_id}, {"status", ToString(s.status)},
                         {"changed", s.changed}, {"started_at", s.started_at}, {"finished_at", s.finished_at},
                         {"output", s.output_summary}});
  }
  run["steps"] = std::move(step_list);
  run["events"] = std::move(events).value();
  return run;
}

}  // namespace clusterctl
