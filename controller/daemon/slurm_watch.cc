#include "controller/daemon/slurm_watch.h"

#include <algorithm>

#include "common/strings.h"
#include "controller/daemon/job_line.h"
#include "controller/validate/scontrol_nodes.h"

namespace clusterctl {
namespace {

constexpr size_t kNameMax = 100;
constexpr size_t kStateMax = 100;
constexpr size_t kReasonMax = 200;
constexpr size_t kErrorMax = 1000;
constexpr std::chrono::seconds kCloseWait{5};

nlohmann::json TimeOrNull(int64_t ms) { return ms ? nlohmann::json(ms) : nlohmann::json(nullptr); }

// The Slurm controllers: the primary (the controller group's host), then
// the backup (controller_backup's), which answers while it is in control.
std::vector<const Host*> SlurmControllers(const Inventory& inventory) {
  std::vector<const Host*> hosts;
  for (const char* group_name : {kGroupController, kGroupControllerBackup}) {
    if (const Group* group = inventory.FindGroup(group_name)) {
      for (const std::string& name : group->members) {
        if (const Host* host = inventory.FindHost(name)) hosts.push_back(host);
      }
    }
  }
  return hosts;
}

}  // namespace

void TakeSlurmNodes(SlurmNodesReading& reading, const std::vector<SlurmNodeState>& nodes, int64_t now_ms) {
  reading.read_at_ms = now_ms;
  reading.error.clear();
  reading.read_from = nodes.empty() ? "" : BoundedText(nodes.front().read_from, kReasonMax);
  reading.nodes = nodes.size();
  reading.unavailable_by_health = reading.unavailable_other = 0;
  reading.unavailable.clear();
  std::vector<const SlurmNodeState*> down;
  for (const SlurmNodeState& node : nodes) {
    if (node.usable) continue;
    down.push_back(&node);
    ++(DrainedByHealthCheck(node.reason) ? reading.unavailable_by_health : reading.unavailable_other);
  }
  std::sort(down.begin(), down.end(), [](const SlurmNodeState* a, const SlurmNodeState* b) { return a->name < b->name; });
  if (down.size() > SlurmNodesReading::kMaxListed) down.resize(SlurmNodesReading::kMaxListed);
  for (const SlurmNodeState* node : down) {
    reading.unavailable.push_back({BoundedText(node->name, kNameMax), BoundedText(node->state, kStateMax),
                                   BoundedText(node->why_not, kStateMax), BoundedText(node->reason, kReasonMax),
                                   DrainedByHealthCheck(node->reason)});
  }
}

nlohmann::json SlurmToJson(const SlurmNodesReading& reading) {
  nlohmann::json unavailable = nlohmann::json::array();
  for (const SlurmUnavailableNode& node : reading.unavailable) {
    unavailable.push_back({{"name", node.name}, {"state", node.state}, {"why", node.why}, {"reason", node.reason},
                           {"drained_by_health", node.drained_by_health}});
  }
  const size_t total = reading.unavailable_by_health + reading.unavailable_other;
  return {{"configured", reading.configured},
          {"controller", reading.controller},
          {"interval_s", reading.interval_s},
          {"tried_at", TimeOrNull(reading.tried_at_ms)},
          {"read_at", TimeOrNull(reading.read_at_ms)},
          {"error", reading.error},
          {"read_from", reading.read_from},
          {"nodes", reading.nodes},
          {"unavailable_by_health", reading.unavailable_by_health},
          {"unavailable_other", reading.unavailable_other},
          {"unavailable", unavailable},
          {"unlisted", total - reading.unavailable.size()}};
}

SlurmWatch::SlurmWatch(SlurmWatchOptions options, std::function<std::shared_ptr<const Site>()> site)
    : options_(std::move(options)), site_(std::move(site)) {
  reading_.interval_s = options_.interval.count();
}

SlurmWatch::~SlurmWatch() { Stop(); }

void SlurmWatch::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void SlurmWatch::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cancel_.Cancel(std::chrono::milliseconds(0));
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SlurmWatch::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    ReadNow();
    lock.lock();
    wake_.wait_for(lock, options_.interval, [this] { return stopping_; });
  }
}

SlurmNodesReading SlurmWatch::Get() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reading_;
}

// The reading's barrier: whatever escapes is this reading's error, and the
// watch reads again at the next interval.
void SlurmWatch::ReadNow() {
  SlurmNodesReading reading = Get();  // the last good nodes stay, with their read_at
  const std::shared_ptr<const Site> site = site_();
  const std::vector<const Host*> controllers = SlurmControllers(*site->inventory);
  reading.configured = !controllers.empty();
  if (!reading.configured) {
    SlurmNodesReading none;
    none.interval_s = reading.interval_s;
    Record(std::move(none));
    return;
  }
  reading.tried_at_ms = options_.clock->NowMs();
  std::unique_ptr<RemoteRunner> runner;
  SessionFactory* sessions = options_.sessions;
  try {
    Result<std::vector<SlurmNodeState>> read = Status::Internal("no reading");
    if (sessions == nullptr) {
      auto made = ReadOnlyRunner();
      if (made.ok()) runner = std::move(made).value();
      sessions = runner.get();
      if (!made.ok()) read = made.status();
    }
    if (sessions) read = ReadFrom(*sessions, controllers, reading.controller);
    if (read.ok()) {
      TakeSlurmNodes(reading, *read, options_.clock->NowMs());
    } else {
      reading.error = BoundedText(read.status().message(), kErrorMax);
    }
  } catch (const std::exception& e) {
    reading.error = BoundedText(std::string("internal error: ") + e.what(), kErrorMax);
  } catch (...) {
    reading.error = "internal error: an exception of unknown type";
  }
  const bool good = reading.error.empty();
  Record(reading);
  if (good && options_.after_reading && sessions) AfterReading(*site, reading, *sessions);
}

// The hook's barrier: what escapes it is logged; the reading stands.
void SlurmWatch::AfterReading(const Site& site, const SlurmNodesReading& reading, SessionFactory& sessions) {
  try {
    options_.after_reading(site, reading, sessions);
  } catch (const std::exception& e) {
    if (options_.log) options_.log(LogLevel::kError, "internal error after the Slurm reading: " + std::string(e.what()));
  }
}

Result<std::vector<SlurmNodeState>> SlurmWatch::ReadFrom(SessionFactory& sessions,
                                                         const std::vector<const Host*>& controllers,
                                                         std::string& read_on) {
  std::vector<std::string> errors;
  for (const Host* host : controllers) {
    read_on = host->name;
    Result<std::vector<SlurmNodeState>> read = Status::Internal("no answer");
    sessions.ForEach(1, [&](size_t) -> Task<void> {
      try {
        OpenedSession opened = co_await sessions.Open(*host, &cancel_);
        if (!opened.session) {
          read = opened.status.ok() ? Status::Internal("no session") : opened.status;
          co_return;
        }
        read = co_await ReadScontrolNodes(*opened.session, options_.command_timeout_s);
        co_await opened.session->Close(options_.clock->Monotonic() + kCloseWait);
      } catch (const std::exception& e) {
        read = Status::Internal(std::string("internal error: ") + e.what());
      }
    });
    if (read.ok()) return read;
    const std::string& message = read.status().message();
    errors.push_back(message.rfind(host->name + ": ", 0) == 0 ? message : host->name + ": " + message);
    if (cancel_.cancelled()) break;
  }
  return Status::Unavailable(Join(errors, "; "));
}

// SSH with the host keys the state holds now, no key recorded, no agent installed.
Result<std::unique_ptr<RemoteRunner>> SlurmWatch::ReadOnlyRunner() const {
  auto agents = AgentBinaries::Discover();
  if (!agents.ok()) return agents.status();
  std::map<std::string, RecordedHostKey> known;
  auto store = StateStore::OpenForReading(options_.paths, *options_.filesystem);
  if (store.ok()) {
    auto keys = (*store)->LoadHostKeys();
    if (!keys.ok()) return keys.status();
    for (const auto& [name, key] : *keys) known[name] = {key.type, key.sha256};
  } else if (store.status().code() != Status::Code::kNotFound) {
    return store.status();
  }
  RemoteOptions remote = options_.remote;
  remote.install_agent = false;
  FanoutOptions fanout;
  fanout.forks = 1;
  fanout.threads = 1;
  auto runner = std::make_unique<RemoteRunner>(std::move(known), std::move(agents).value(), remote, fanout);
  runner->OnHostKeyAccepted([](const std::string&, const RecordedHostKey&) {
    return Status::FailedPrecondition("the daemon's Slurm reading records no host key (a deploy of the host does)");
  });
  return runner;
}

void SlurmWatch::Record(SlurmNodesReading reading) {
  std::string line;
  LogLevel level = LogLevel::kInfo;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const bool failed_before = !reading_.error.empty();
    if (!reading.error.empty() && !failed_before) {
      level = LogLevel::kWarning;
      line = "cannot read Slurm's nodes (tried again every " + std::to_string(reading.interval_s) + " s): " +
             reading.error;
    } else if (reading.error.empty() && reading.configured && failed_before) {
      line = "reads Slurm's nodes on " + reading.controller + " again";
    }
    reading_ = std::move(reading);
  }
  if (!line.empty() && options_.log) options_.log(level, "slurm: " + line);
}

}  // namespace clusterctl
