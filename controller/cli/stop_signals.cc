#include "controller/cli/stop_signals.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace clusterctl {
namespace {

std::atomic<int> g_stop_pipe{-1};

void OnStopSignal(int signal_number) {
  const int saved_errno = errno;
  const unsigned char byte = static_cast<unsigned char>(signal_number);
  const int fd = g_stop_pipe.load();
  if (fd >= 0) (void)!::write(fd, &byte, 1);
  errno = saved_errno;
}

}  // namespace

StopOnSignals::StopOnSignals(Logger& log, std::chrono::milliseconds grace) : log_(log), grace_(grace) {
  if (::pipe2(pipe_, O_CLOEXEC) != 0) return;  // without a pipe the default dispositions stay
  g_stop_pipe.store(pipe_[1]);
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, &previous_int_);
  ::sigaction(SIGTERM, &action, &previous_term_);
  watcher_ = std::thread([this] { Watch(); });
}

StopOnSignals::~StopOnSignals() {
  if (pipe_[1] < 0) return;
  ::sigaction(SIGINT, &previous_int_, nullptr);
  ::sigaction(SIGTERM, &previous_term_, nullptr);
  g_stop_pipe.store(-1);
  ::close(pipe_[1]);  // ends the watcher
  watcher_.join();
  ::close(pipe_[0]);
}

void StopOnSignals::Watch() {
  unsigned char byte = 0;
  int received = 0;
  while (true) {
    ssize_t n = ::read(pipe_[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    const char* name = byte == SIGINT ? "SIGINT" : "SIGTERM";
    if (++received == 1) {
      token_.Cancel(grace_);
      log_.Warning("\nclusterctl: " + std::string(name) + ": stopping: no new step starts; steps running now get " +
                   std::to_string(std::chrono::duration_cast<std::chrono::seconds>(grace_).count()) +
                   " s to finish (again to stop at once)");
    } else {
      token_.Cancel(std::chrono::milliseconds(0));
      log_.Warning("\nclusterctl: " + std::string(name) + ": stopping now; steps still running are abandoned");
    }
  }
}

}  // namespace clusterctl
