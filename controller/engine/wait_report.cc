#include "controller/engine/wait_report.h"

#include <utility>

namespace clusterctl {

WaitReport::WaitReport(Sink sink, const Clock& clock, std::string host, std::string what,
                       std::chrono::milliseconds every)
    : sink_(std::move(sink)),
      clock_(&clock),
      host_(std::move(host)),
      what_(std::move(what)),
      every_(every),
      started_(clock.Monotonic()),
      last_told_(started_) {
  sink_(WaitEvent{host_, what_, WaitPhase::kStarted, 0, ""});
}

WaitReport::WaitReport(WaitReport&& other) noexcept
    : sink_(std::move(other.sink_)),
      clock_(other.clock_),
      host_(std::move(other.host_)),
      what_(std::move(other.what_)),
      every_(other.every_),
      started_(other.started_),
      last_told_(other.last_told_),
      finished_(other.finished_) {
  other.finished_ = true;  // the moved-from report tells nothing more
}

WaitReport::~WaitReport() {
  if (!finished_) Finish(WaitPhase::kEnded, "");
}

int64_t WaitReport::elapsed_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock_->Monotonic() - started_).count();
}

void WaitReport::Still(const std::string& detail) {
  if (finished_ || clock_->Monotonic() - last_told_ < every_) return;
  last_told_ = clock_->Monotonic();
  sink_(WaitEvent{host_, what_, WaitPhase::kStill, elapsed_ms(), detail});
}

void WaitReport::Ended() { Finish(WaitPhase::kEnded, ""); }

void WaitReport::GaveUp(const std::string& missing) { Finish(WaitPhase::kGaveUp, missing); }

void WaitReport::Finish(WaitPhase phase, const std::string& detail) {
  if (finished_) return;
  finished_ = true;
  sink_(WaitEvent{host_, what_, phase, elapsed_ms(), detail});
}

}  // namespace clusterctl
