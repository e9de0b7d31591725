#include "agent/exec/run_command.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/clock.h"

namespace clusterctl::agent {
namespace {

using TimePoint = std::chrono::steady_clock::time_point;

// A command's deadline, stall watch and duration are on the node's own time.
const SystemClock kMachineClock;

void SetNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

ino_t InodeOf(int fd) {
  struct stat st {};
  return fd >= 0 && ::fstat(fd, &st) == 0 ? st.st_ino : 0;
}

// kill(2) with a pid <= 0 names this agent's own process group (0), every
// process the agent may signal (-1) or a group by its id: only a process or
// group the agent started, known by its positive pid, is ever signalled.
void SignalProcess(pid_t pid, int signal_number) {
  if (pid > 0) ::kill(pid, signal_number);
}
void SignalGroup(pid_t group, int signal_number) {
  if (group > 0) ::kill(-group, signal_number);
}

// Kills every process (but this one) that holds one of the pipes: the
// descendants that left the command's process group (setsid, a double
// fork) and still hold its stdout or stderr.
void KillPipeHolders(const std::vector<ino_t>& pipes) {
  DIR* proc = ::opendir("/proc");
  if (!proc) return;
  const pid_t self = ::getpid();
  while (dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == self) continue;
    const std::string fd_dir = std::string("/proc/") + entry->d_name + "/fd";
    DIR* fds = ::opendir(fd_dir.c_str());
    if (!fds) continue;
    bool holds = false;
    while (dirent* fd = ::readdir(fds)) {
      if (fd->d_name[0] == '.') continue;
      struct stat st {};
      if (::stat((fd_dir + "/" + fd->d_name).c_str(), &st) != 0 || !S_ISFIFO(st.st_mode)) continue;
      for (ino_t inode : pipes) holds = holds || (inode != 0 && st.st_ino == inode);
    }
    ::closedir(fds);
    if (holds) SignalProcess(static_cast<pid_t>(pid), SIGKILL);
  }
  ::closedir(proc);
}

// The escalation after the command's time limit: SIGTERM to its process
// group; `kill_grace` later SIGKILL; a second later SIGKILL to whatever
// outside the group still holds its outputs; a second after that the
// outputs are abandoned. Nothing the command started can keep the agent
// (and the controller's step) waiting past the limit plus a few seconds.
class Deadline {
 public:
  Deadline(pid_t group, TimePoint at, std::chrono::milliseconds kill_grace)
      : group_(group), next_(at), kill_grace_(kill_grace) {}

  enum class Phase { kRunning, kTermSent, kKillSent, kHoldersKilled, kAbandoned };

  // Moves to the next phase when its time has come; returns the phase.
  Phase Advance(const std::vector<ino_t>& pipes) {
    const auto now = kMachineClock.Monotonic();
    if (now < next_ || phase_ == Phase::kAbandoned) return phase_;
    switch (phase_) {
      case Phase::kRunning:
        SignalGroup(group_, SIGTERM);
        phase_ = Phase::kTermSent;
        next_ = now + kill_grace_;
        break;
      case Phase::kTermSent:
        SignalGroup(group_, SIGKILL);
        phase_ = Phase::kKillSent;
        next_ = now + std::chrono::seconds(1);
        break;
      case Phase::kKillSent:
        KillPipeHolders(pipes);
        phase_ = Phase::kHoldersKilled;
        next_ = now + std::chrono::seconds(1);
        break;
      case Phase::kHoldersKilled:
      case Phase::kAbandoned:
        phase_ = Phase::kAbandoned;
        break;
    }
    return phase_;
  }
  // Starts the escalation now (the controller is gone), if not started yet.
  void StopNow() {
    if (phase_ == Phase::kRunning) next_ = kMachineClock.Monotonic();
  }
  bool expired() const { return phase_ != Phase::kRunning; }
  // Milliseconds until the next phase (for poll), at most `cap`.
  int WaitMs(int cap) const {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(next_ - kMachineClock.Monotonic()).count();
    return static_cast<int>(std::max<long long>(0, std::min<long long>(left + 1, cap)));
  }

 private:
  pid_t group_;
  TimePoint next_;
  std::chrono::milliseconds kill_grace_;
  Phase phase_ = Phase::kRunning;
};

struct ChildPipes {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, exec[2] = {-1, -1};

  // All four pipes, or none (and errno set).
  bool Open() {
    if (::pipe2(in, O_CLOEXEC) == 0 && ::pipe2(out, O_CLOEXEC) == 0 && ::pipe2(err, O_CLOEXEC) == 0 &&
        ::pipe2(exec, O_CLOEXEC) == 0) {
      return true;
    }
    CloseAll();
    return false;
  }
  // Closes every end still open; keeps errno.
  void CloseAll() {
    const int saved = errno;
    for (int* pair : {in, out, err, exec}) {
      for (int i = 0; i < 2; ++i) {
        if (pair[i] >= 0) ::close(pair[i]);
        pair[i] = -1;
      }
    }
    errno = saved;
  }
};

// A command that never ran: exit 127 (the shell's "cannot execute"),
// `reason` on stderr.
CommandResult NotStarted(std::string reason) {
  CommandResult result;
  result.started = false;
  result.exit_code = 127;
  result.stderr_data = std::move(reason);
  return result;
}

[[noreturn]] void ExecChild(const CommandSpec& spec, const ChildPipes& p, std::vector<char*>& argv,
                            std::vector<char*>& envp) {
  ::setpgid(0, 0);
  ::dup2(p.in[0], 0);
  ::dup2(p.out[1], 1);
  ::dup2(p.err[1], 2);
  if (::chdir(spec.working_directory.c_str()) != 0) (void)!::chdir("/");
  ::signal(SIGPIPE, SIG_DFL);
  ::execvpe(argv[0], argv.data(), envp.data());
  int error = errno;
  (void)!::write(p.exec[1], &error, sizeof error);
  ::_exit(127);
}

// The controller is gone: the command is stopped as at its time limit.
void StopForHangup(Deadline& deadline, CommandResult& result) {
  result.controller_gone = true;
  deadline.StopNow();
}

// Feeds stdin and collects stdout/stderr until both close, or until the
// deadline's escalation abandons them.
void Pump(const CommandSpec& spec, ChildPipes& p, Deadline& deadline, CommandResult& result) {
  size_t stdin_offset = 0;
  int stdin_fd = p.in[1];
  if (spec.stdin_data.empty()) {
    ::close(stdin_fd);
    stdin_fd = -1;
  }
  const std::vector<ino_t> outputs = {InodeOf(p.out[0]), InodeOf(p.err[0])};
  int open_outputs = 2;
  char buffer[65536];
  StallTracker stall(spec.stall, kMachineClock.Monotonic());
  std::string added;  // what the last pass read, both streams
  while (open_outputs > 0) {
    if (deadline.Advance(outputs) == Deadline::Phase::kAbandoned) break;
    if (!result.stalled && !deadline.expired() && stall.Stalled(added, kMachineClock.Monotonic())) {
      result.stalled = true;
      deadline.StopNow();
    }
    added.clear();
    result.timed_out = deadline.expired() && !result.controller_gone && !result.stalled;
    pollfd fds[4];
    int n = 0;
    if (p.out[0] >= 0) fds[n++] = {p.out[0], POLLIN, 0};
    if (p.err[0] >= 0) fds[n++] = {p.err[0], POLLIN, 0};
    if (stdin_fd >= 0) fds[n++] = {stdin_fd, POLLOUT, 0};
    const bool watching = spec.hangup.active() && !result.controller_gone;
    if (watching) fds[n++] = spec.hangup.PollEntry();
    int ready = ::poll(fds, static_cast<nfds_t>(n), deadline.WaitMs(1000));
    if (ready < 0 && errno != EINTR) break;
    if (watching) {
      const pollfd hangup = fds[--n];  // the loop below reads the command's own pipes
      if (HangupWatch::IsHangup(hangup.revents)) StopForHangup(deadline, result);
    }
    for (int i = 0; i < n; ++i) {
      if (!fds[i].revents) continue;
      if (fds[i].fd == stdin_fd) {
        ssize_t w = ::write(stdin_fd, spec.stdin_data.data() + stdin_offset, spec.stdin_data.size() - stdin_offset);
        if (w > 0) stdin_offset += static_cast<size_t>(w);
        if (w < 0 && errno != EAGAIN) stdin_offset = spec.stdin_data.size();
        if (stdin_offset >= spec.stdin_data.size()) {
          ::close(stdin_fd);
          stdin_fd = -1;
        }
        continue;
      }
      const bool is_out = fds[i].fd == p.out[0];
      std::string& sink = is_out ? result.stdout_data : result.stderr_data;
      ssize_t r = ::read(fds[i].fd, buffer, sizeof buffer);
      if (r > 0) {
        if (spec.stall.window.count() > 0) added.append(buffer, static_cast<size_t>(r));
        size_t room = spec.output_limit > sink.size() ? spec.output_limit - sink.size() : 0;
        if (static_cast<size_t>(r) > room) result.truncated = true;
        sink.append(buffer, std::min(room, static_cast<size_t>(r)));
      } else if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
        ::close(fds[i].fd);
        (is_out ? p.out[0] : p.err[0]) = -1;
        --open_outputs;
      }
    }
  }
  for (int* fd : {&stdin_fd, &p.out[0], &p.err[0]}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

// Waits for the command's own process, escalating as the deadline says.
int Reap(const CommandSpec& spec, pid_t pid, Deadline& deadline, CommandResult& result) {
  int status = 0;
  while (true) {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return status;
    if (deadline.Advance({}) == Deadline::Phase::kAbandoned) {
      SignalProcess(pid, SIGKILL);  // cannot be ignored: the wait below ends
      ::waitpid(pid, &status, 0);
      return status;
    }
    if (!result.controller_gone && spec.hangup.Reported()) StopForHangup(deadline, result);
    result.timed_out = deadline.expired() && !result.controller_gone && !result.stalled;
    ::usleep(2000);
  }
}

}  // namespace

std::map<std::string, std::string> BaseEnvironment() {
  return {{"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
          {"LANG", "C.UTF-8"},
          {"HOME", "/root"},
          {"DEBIAN_FRONTEND", "noninteractive"}};
}

CommandResult RunCommand(const CommandSpec& spec, ForkFunction fork_process) {
  CommandResult result;
  const auto start = kMachineClock.Monotonic();
  ChildPipes p;
  if (spec.argv.empty()) return NotStarted("empty command");
  if (spec.hangup.Reported()) {
    CommandResult gone = NotStarted(spec.argv[0] + " was not started: the controller's session has closed");
    gone.controller_gone = true;
    return gone;
  }
  if (!p.Open()) return NotStarted(spec.argv[0] + " could not be started: pipe: " + std::strerror(errno));
  std::map<std::string, std::string> env = BaseEnvironment();
  for (const auto& [k, v] : spec.env) env[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  pid_t pid = fork_process();
  if (pid == 0) ExecChild(spec, p, argv, envp);
  if (pid < 0) {
    // Without a process there is nothing to wait for or to signal (a pid of
    // -1 given to kill() would reach every process on the node).
    const std::string reason = spec.argv[0] + " could not be started: fork: " + std::strerror(errno);
    p.CloseAll();
    return NotStarted(reason);
  }
  ::close(p.in[0]);
  ::close(p.out[1]);
  ::close(p.err[1]);
  ::close(p.exec[1]);
  int exec_error = 0;
  if (::read(p.exec[0], &exec_error, sizeof exec_error) == sizeof exec_error) {
    result.started = false;
    result.stderr_data = spec.argv[0] + ": " + std::strerror(exec_error);
  }
  ::close(p.exec[0]);
  SetNonBlocking(p.in[1]);
  SetNonBlocking(p.out[0]);
  SetNonBlocking(p.err[0]);

  Deadline deadline(pid, start + spec.timeout, spec.kill_grace);
  Pump(spec, p, deadline, result);
  const int status = Reap(spec, pid, deadline, result);
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = -1;
  }
  if (!result.started) result.exit_code = 127;
  result.duration = std::chrono::duration_cast<std::chrono::milliseconds>(kMachineClock.Monotonic() - start);
  return result;
}

}  // namespace clusterctl::agent
