#include "agent/exec/run_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace clusterctl::agent {
namespace {

using Clock = std::chrono::steady_clock;

void SetNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

std::map<std::string, std::string> BaseEnvironment() {
  return {{"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
          {"LANG", "C.UTF-8"},
          {"HOME", "/root"},
          {"DEBIAN_FRONTEND", "noninteractive"}};
}

CommandResult RunCommand(const CommandSpec& spec) {
  CommandResult result;
  const auto start = Clock::now();
  if (spec.argv.empty()) {
    result.started = false;
    result.exit_code = 127;
    result.stderr_data = "empty command";
    return result;
  }
  int in_pipe[2], out_pipe[2], err_pipe[2], exec_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(exec_pipe, O_CLOEXEC) != 0) {
    result.started = false;
    result.exit_code = 127;
    result.stderr_data = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
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

  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    if (::chdir(spec.working_directory.c_str()) != 0) (void)!::chdir("/");
    ::signal(SIGPIPE, SIG_DFL);
    ::execvpe(argv[0], argv.data(), envp.data());
    int error = errno;
    (void)!::write(exec_pipe[1], &error, sizeof error);
    ::_exit(127);
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::close(exec_pipe[1]);
  int exec_error = 0;
  if (::read(exec_pipe[0], &exec_error, sizeof exec_error) == sizeof exec_error) {
    result.started = false;
    result.stderr_data = spec.argv[0] + ": " + std::strerror(exec_error);
  }
  ::close(exec_pipe[0]);

  SetNonBlocking(in_pipe[1]);
  SetNonBlocking(out_pipe[0]);
  SetNonBlocking(err_pipe[0]);
  size_t stdin_offset = 0;
  int stdin_fd = in_pipe[1];
  if (spec.stdin_data.empty()) {
    ::close(stdin_fd);
    stdin_fd = -1;
  }
  int open_outputs = 2;
  bool term_sent = false;
  Clock::time_point kill_at{};
  const Clock::time_point deadline = start + spec.timeout;
  char buffer[65536];
  while (open_outputs > 0) {
    pollfd fds[3];
    int n = 0;
    fds[n++] = {out_pipe[0], POLLIN, 0};
    fds[n++] = {err_pipe[0], POLLIN, 0};
    if (stdin_fd >= 0) fds[n++] = {stdin_fd, POLLOUT, 0};
    auto now = Clock::now();
    if (!term_sent && now >= deadline) {
      result.timed_out = true;
      ::kill(-pid, SIGTERM);
      term_sent = true;
      kill_at = now + std::chrono::seconds(5);
    } else if (term_sent && now >= kill_at) {
      ::kill(-pid, SIGKILL);
      kill_at = now + std::chrono::hours(1);
    }
    auto wait_until = term_sent ? kill_at : deadline;
    int timeout_ms = static_cast<int>(
        std::max<long long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(wait_until - now).count()) + 1);
    int ready = ::poll(fds, static_cast<nfds_t>(n), std::min(timeout_ms, 1000));
    if (ready < 0 && errno != EINTR) break;
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
      std::string& sink = fds[i].fd == out_pipe[0] ? result.stdout_data : result.stderr_data;
      ssize_t r = ::read(fds[i].fd, buffer, sizeof buffer);
      if (r > 0) {
        size_t room = spec.output_limit > sink.size() ? spec.output_limit - sink.size() : 0;
        if (static_cast<size_t>(r) > room) result.truncated = true;
        sink.append(buffer, std::min(room, static_cast<size_t>(r)));
      } else if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
        ::close(fds[i].fd);
        if (fds[i].fd == out_pipe[0]) out_pipe[0] = -1;
        if (fds[i].fd == err_pipe[0]) err_pipe[0] = -1;
        --open_outputs;
      }
    }
  }
  if (stdin_fd >= 0) ::close(stdin_fd);
  int status = 0;
  while (true) {
    pid_t r = ::waitpid(pid, &status, term_sent ? 0 : WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) break;
    if (r == 0) {
      // Outputs closed but the process lives on (it closed them itself); wait for it under the deadline.
      if (Clock::now() >= deadline && !term_sent) {
        result.timed_out = true;
        ::kill(-pid, SIGTERM);
        term_sent = true;
      }
      ::usleep(2000);
    }
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = -1;
  }
  if (!result.started) result.exit_code = 127;
  result.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  return result;
}

}  // namespace clusterctl::agent
