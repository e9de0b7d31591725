// The maintenance silence: before a node goes down on purpose (a
// maintenance step's change, a reboot), its alerts are silenced in the
// cluster's Alertmanager (maintenance_silences.h) until this host's run is
// over, or by themselves after the time it may be down plus
// ExecutionOptions::silence_margin (a bound only for a silence that a dead
// controller leaves behind). Once a run; nothing in check mode; a silence
// that cannot be opened is a note, never a failure. At the host's end the
// silence is closed once Prometheus sees the node healthy again, or at the
// bound with a warning (MaintenanceSilences::Close).
#include <optional>

#include "controller/engine/host_run_phase.h"
#include "controller/engine/maintenance_silences.h"

namespace clusterctl {
namespace {

class MaintenanceSilencePhase final : public HostRunPhase {
 public:
  MaintenanceSilencePhase(std::string host, MaintenanceSilences& silences) : host_(std::move(host)), silences_(silences) {}

  Task<void> NodeGoingDown(KindHost& host, const std::string& why, std::chrono::seconds down_for) override {
    if (host.options().check || id_) co_return;
    const auto lasts = std::chrono::duration_cast<std::chrono::milliseconds>(down_for + host.options().silence_margin);
    const int64_t now = host.clock().NowMs();
    Result<std::string> opened = co_await silences_.Open(host_, "clusterctl: " + why, now + lasts.count());
    if (!opened.ok()) {
      host.report().Note("alerts of " + host_ + " are not silenced (" + opened.status().message() +
                         "); the maintenance goes ahead");
      co_return;
    }
    id_ = *opened;
    opened_ms_ = now;
    host.report().Note("alerts of " + host_ + " silenced in Alertmanager (silence " + *id_ + ", ending by itself in " +
                       std::to_string(lasts.count() / 60000) + " min at the latest)");
  }

  // Back and checked, or failed: either way a person should hear of it from now on.
  Task<void> HostDone(KindHost& host) override {
    if (!id_) co_return;
    WaitReport wait = host.report().BeginWait("Prometheus to see " + host_ + " healthy before its maintenance silence ends");
    Status ended = co_await silences_.Close(host_, *id_, opened_ms_, wait);
    wait.Ended();
    host.report().Note(ended.ok() ? "the maintenance silence of " + host_ + " ended"
                                  : "the maintenance silence of " + host_ + " could not be ended (" + ended.message() +
                                        "); it ends by itself");
    id_.reset();
  }

 private:
  const std::string host_;
  MaintenanceSilences& silences_;
  std::optional<std::string> id_;  // the open silence
  int64_t opened_ms_ = 0;
};

std::unique_ptr<HostRunPhase> Make(const HostRunPhaseInputs& in) {
  if (in.context.silences == nullptr) return nullptr;  // no Alertmanager in the inventory
  return std::make_unique<MaintenanceSilencePhase>(in.host, *in.context.silences);
}

const HostRunPhaseRegistration kMaintenanceSilence("maintenance-silence", Make);

}  // namespace
}  // namespace clusterctl
