#include "controller/power/local_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace clusterctl {
namespace {

struct Pipe {
  int read = -1, write = -1;
  bool Open() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    read = fds[0];
    write = fds[1];
    return true;
  }
  void CloseRead() { if (read >= 0) ::close(read), read = -1; }
  void CloseWrite() { if (write >= 0) ::close(write), write = -1; }
};

// Spawns argv with stdout and stderr on the pipes' write ends; 0 or errno.
int Spawn(const std::vector<std::string>& argv, Pipe& out, Pipe& err, pid_t& pid) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write, 1);
  posix_spawn_file_actions_adddup2(&actions, err.write, 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;  // clusterctl ignores SIGPIPE (main.cc); the child gets the default back
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  int rc = ::posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  return rc;
}

// Appends what is readable on `fd` to `to` (bounded); false at end of file.
bool Drain(int fd, std::string& to) {
  char buffer[4096];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  size_t room = kMaxProcessOutput > to.size() ? kMaxProcessOutput - to.size() : 0;
  to.append(buffer, std::min(room, static_cast<size_t>(n)));
  return true;
}

int WaitStatus(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

ProcessOutput LocalProcessRunner::Run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  ProcessOutput result;
  Pipe out, err;
  if (argv.empty() || !out.Open() || !err.Open()) {
    result.err = argv.empty() ? "no program given" : std::string("cannot make a pipe: ") + std::strerror(errno);
    return result;
  }
  pid_t pid = 0;
  int rc = Spawn(argv, out, err, pid);
  out.CloseWrite();
  err.CloseWrite();
  if (rc != 0) {
    out.CloseRead();
    err.CloseRead();
    result.err = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return result;
  }
  result.started = true;
  const auto deadline = clock_.Monotonic() + timeout;
  pollfd fds[2] = {{out.read, POLLIN, 0}, {err.read, POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open = 2;
  while (open > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_.Monotonic());
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    if (::poll(fds, 2, static_cast<int>(std::min<int64_t>(left.count(), 1000))) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      if (!Drain(fds[i].fd, *sinks[i])) {
        fds[i].fd = -1;
        --open;
      }
    }
  }
  out.CloseRead();
  err.CloseRead();
  result.exit_code = WaitStatus(pid);
  return result;
}

}  // namespace clusterctl
