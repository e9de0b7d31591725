#include "controller/remote/host_connector.h"

#include <random>

#include "common/clock.h"
#include "controller/remote/agent_launch.h"
#include "controller/remote/jump_hosts.h"
#include "controller/remote/sleep.h"

namespace clusterctl {

// Connection deadlines are on the machine's own time.
const SystemClock kMachineClock;

namespace {

std::chrono::milliseconds Backoff(int attempt) {
  thread_local std::mt19937 random(std::random_device{}());
  const int base = std::min(100 << attempt, 3000);
  return std::chrono::milliseconds(base + std::uniform_int_distribution<int>(0, base)(random));
}

SudoMode SudoModeFor(const Host& host, const RemoteOptions& options) {
  if (host.connection.EffectiveBecome() == Become::kNone || host.connection.user == "root") return SudoMode::kNone;
  return options.sudo_password ? SudoMode::kPassword : SudoMode::kNoPassword;
}

// Turns what sudo prints into an admin-facing reason.
Status ExplainStartFailure(const Host& host, std::optional<int> exit_status, const std::string& stderr_text) {
  auto has = [&](const char* text) { return stderr_text.find(text) != std::string::npos; };
  if (has("a password is required") || has("a terminal is required")) {
    return Status::PermissionDenied("sudo on " + host.name + " needs a password for " + host.connection.user +
                                    "; give it with --ask-become-pass or CLUSTERCTL_SUDO_PASSWORD");
  }
  if (has("incorrect password") || has("Sorry, try again")) {
    return Status::PermissionDenied("sudo on " + host.name + " rejected the password for " + host.connection.user);
  }
  if (has("not in the sudoers") || has("is not allowed to execute")) {
    return Status::PermissionDenied(host.connection.user + " may not use sudo on " + host.name);
  }
  if (has(kSudoPrompt)) {  // prompted again after the password was given
    return Status::PermissionDenied("sudo on " + host.name + " rejected the password for " + host.connection.user);
  }
  if (has("sudo: not found") || has("sudo: command not found")) {
    return Status::FailedPrecondition("sudo is not installed on " + host.name + " (become: sudo)");
  }
  std::string detail = stderr_text.empty() ? "" : ": " + stderr_text;
  while (!detail.empty() && detail.back() == '\n') detail.pop_back();
  return Status::Unavailable("the agent did not start on " + host.name +
                             (exit_status ? " (exit status " + std::to_string(*exit_status) + ")" : "") + detail);
}

// Runs a short command with `input` on stdin; Ok when it exits 0.
Task<Status> RunSetupCommand(SshSession& session, const std::string& command, std::string_view input,
                             Deadline deadline) {
  auto channel = co_await session.Exec(command, deadline);
  if (!channel.ok()) co_return channel.status();
  if (!input.empty()) {
    Status written = co_await (*channel)->Write(input, deadline);
    if (!written.ok()) co_return written;
  }
  (*channel)->SendEof();
  std::string out, err;
  bool eof = false;
  while (!eof) {
    Status read = co_await (*channel)->Read(out, &err, eof, deadline);
    if (!read.ok()) co_return read;
  }
  std::optional<int> status;
  for (int i = 0; i < 50 && !status; ++i) {
    status = (*channel)->ExitStatus();
    if (!status) {
      co_await session.WaitForIo(std::min(deadline, kMachineClock.Monotonic() + std::chrono::milliseconds(20)));
    }
  }
  if (status && *status == 0) co_return Status::Ok();
  co_return Status::Unavailable("exit status " + (status ? std::to_string(*status) : std::string("unknown")) +
                                (err.empty() ? "" : ": " + err));
}

Task<Status> UploadAgent(SshSession& session, const AgentBinary& binary, SudoMode sudo,
                         const RemoteOptions& options, Deadline deadline) {
  auto content = AgentBinaries::Load(binary);
  if (!content.ok()) co_return content.status();
  // Commands are named, not temporaries inside co_await (g++ 12 coroutine bug).
  const std::string upload = AgentUploadCommand(binary, sudo);
  Status uploaded = co_await RunSetupCommand(session, upload, *content, deadline);
  if (!uploaded.ok() || sudo != SudoMode::kPassword) co_return uploaded;
  const std::string install = AgentInstallFromHomeCommand(binary, sudo);
  const std::string password_line = *options.sudo_password + "\n";
  co_return co_await RunSetupCommand(session, install, password_line, deadline);
}

struct StartResult {
  std::unique_ptr<AgentConnection> agent;
  Status status;
  std::string missing_arch;  // set when the node lacks this build (exit 125)
};

Task<StartResult> StartAgent(std::unique_ptr<SshSession>& session, const Host& host, RemoteContext& context,
                             SudoMode sudo, const CancelToken* cancel, Deadline deadline) {
  StartResult result;
  const std::string start = AgentStartCommand(context.agents, sudo);
  auto channel = co_await session->Exec(start, deadline);
  if (!channel.ok()) {
    result.status = channel.status();
    co_return result;
  }
  auto agent = std::make_unique<AgentConnection>(std::move(session), std::move(*channel),
                                                 agent_protocol::FrameDecoder(true), context.options.keepalive_interval,
                                                 cancel);
  // The password answers sudo's first prompt only; sudo -S prompts again
  // (and says "Sorry, try again.") after a wrong one: that is a refusal.
  size_t prompts_answered = 0;
  const AgentConnection::StartWatch watch = [&](const std::string& err) {
    if (err.find("Sorry, try again") != std::string::npos || err.find("incorrect password") != std::string::npos) {
      return AgentConnection::StartAction::kGiveUp;
    }
    size_t prompts = 0;
    for (size_t at = err.find(kSudoPrompt); at != std::string::npos; at = err.find(kSudoPrompt, at + 1)) ++prompts;
    if (prompts <= prompts_answered) return AgentConnection::StartAction::kWait;
    if (prompts_answered > 0 || sudo != SudoMode::kPassword) return AgentConnection::StartAction::kGiveUp;
    prompts_answered = prompts;
    return AgentConnection::StartAction::kAnswer;
  };
  const std::string password_line = sudo == SudoMode::kPassword ? *context.options.sudo_password + "\n" : "";
  Status hello = co_await agent->ReadHello(deadline, watch, password_line);
  if (hello.ok()) {
    result.agent = std::move(agent);
    result.status = Status::Ok();
    co_return result;
  }
  std::optional<int> exit_status =
      co_await agent->WaitExitStatus(std::min(deadline, kMachineClock.Monotonic() + std::chrono::seconds(2)));
  const std::string err = agent->stderr_tail();
  session = agent->ReleaseSession();
  agent.reset();
  if (exit_status && *exit_status == kAgentMissingExit) {
    size_t at = err.find("missing ");
    result.missing_arch = at == std::string::npos ? "" : err.substr(at + 8, err.find('\n', at) - at - 8);
    result.status = Status::NotFound("agent missing");
    co_return result;
  }
  if (exit_status && *exit_status == kAgentNoBuildExit) {
    size_t at = err.find("no build for ");
    std::string arch = at == std::string::npos ? "?" : err.substr(at + 13, err.find('\n', at) - at - 13);
    std::string builds;
    for (const std::string& a : context.agents.Archs()) builds += (builds.empty() ? "" : ", ") + a;
    result.status = Status::Unsupported(host.name + " is " + arch + "; clusterctl-agent builds exist for: " + builds);
    co_return result;
  }
  result.status = hello.code() == Status::Code::kTimeout ? hello : ExplainStartFailure(host, exit_status, err);
  if (hello.code() == Status::Code::kPermissionDenied) result.status = ExplainStartFailure(host, exit_status, hello.message());
  co_return result;
}

// The server's host key against the host's policy and known keys; a key
// accepted for the first time is recorded (durable before the first byte
// of authentication, sudo password or request) and noted.
Status TrustHostKey(const Host& host, RemoteContext& context, SshSession& session, std::vector<std::string>& notes) {
  auto key = session.ServerHostKey();
  if (!key.ok()) return key.status();
  HostKeyDecision decision = DecideHostKey(host.name, host.connection.host_key_policy,
                                           context.host_keys.Lookup(host.name), *key, session.CheckUserKnownHosts());
  if (decision.kind == HostKeyDecision::Kind::kRefuse) return Status::PermissionDenied(decision.message);
  if (decision.kind == HostKeyDecision::Kind::kAcceptAndRecord) {
    if (Status recorded = context.host_keys.RecordAccepted(host.name, *key); !recorded.ok()) return recorded;
    notes.push_back(decision.message);
  }
  return Status::Ok();
}

}  // namespace

Task<HostConnection> ConnectHost(const Host& host, RemoteContext& context, const CancelToken* cancel) {
  HostConnection out;
  const ConnectionSettings& c = host.connection;
  const auto timeout = std::chrono::seconds(c.connect_timeout_s);
  SshEndpoint endpoint{host.address, c.port, c.user, c.key_file, timeout};
  // TCP connect: `timeout`. Later steps: no progress for `timeout`, and at
  // most setup_cap overall (a loaded server answers slowly but answers).
  const Deadline connect_deadline = kMachineClock.Monotonic() + timeout * 3;
  const auto setup_cap = timeout * 10;

  std::unique_ptr<SshSession> session;
  for (int attempt = 0;; ++attempt) {
    session = std::make_unique<SshSession>(context.waiter);
    Status connected;
    if (c.jump_host && context.jump_hosts) {
      auto tunnel = co_await context.jump_hosts->OpenTunnel(*c.jump_host, host, kMachineClock.Monotonic() + timeout);
      // Not a ?: expression: g++ 12 miscompiles co_await inside conditional operators.
      if (tunnel.ok()) {
        connected = co_await session->ConnectOverSocket(*tunnel, endpoint, kMachineClock.Monotonic() + setup_cap);
      } else {
        connected = tunnel.status();
      }
    } else {
      connected = co_await session->Connect(endpoint, kMachineClock.Monotonic() + setup_cap);
    }
    if (connected.ok()) break;
    const std::chrono::milliseconds pause = Backoff(attempt);
    const bool retry = IsRetryableHandshakeError(connected.message()) && attempt + 1 < context.options.max_connect_attempts &&
                       kMachineClock.Monotonic() + pause < connect_deadline;
    if (!retry) {
      // Without the host's name: every report of it names the host already.
      const std::string where = host.address.find(':') == std::string::npos ? host.address : "[" + host.address + "]";
      out.status = Status::Unavailable(where + ":" + std::to_string(c.port) + ": " + connected.message());
      out.unreachable = true;
      co_return out;
    }
    if (context.options.log) {
      context.options.log->Debug(host.name + ": connection attempt " + std::to_string(attempt + 1) + " of " +
                                 std::to_string(context.options.max_connect_attempts) + " failed (" + connected.message() +
                                 "); retrying in " + std::to_string(pause.count()) + " ms");
    }
    co_await SleepFor(pause);
  }

  if (Status trusted = TrustHostKey(host, context, *session, out.notes); !trusted.ok()) {
    out.status = trusted;
    co_return out;
  }

  const Deadline deadline = kMachineClock.Monotonic() + setup_cap;
  Status authenticated = co_await session->Authenticate(endpoint, deadline);
  if (!authenticated.ok()) {
    out.status = authenticated.WithContext(host.name);
    co_return out;
  }

  const SudoMode sudo = SudoModeFor(host, context.options);
  for (int attempt = 0; attempt < 2; ++attempt) {
    StartResult started =
        co_await StartAgent(session, host, context, sudo, cancel, kMachineClock.Monotonic() + setup_cap);
    if (started.status.ok()) {
      out.agent = std::move(started.agent);
      out.status = Status::Ok();
      co_return out;
    }
    if (started.missing_arch.empty() || attempt > 0) {
      out.status = started.status;
      out.unreachable = started.status.code() == Status::Code::kTimeout;
      co_return out;
    }
    const AgentBinary* binary = context.agents.ForArch(started.missing_arch);
    if (binary && !context.options.install_agent) {
      out.status = Status::FailedPrecondition("clusterctl-agent " + binary->sha256.substr(0, 16) + " (" + binary->arch +
                                              ") is not installed on " + host.name + " (a deploy installs it)");
      co_return out;
    }
    if (!binary) {
      out.status = Status::Unsupported("no clusterctl-agent build for " + started.missing_arch);
      co_return out;
    }
    Status uploaded =
        co_await UploadAgent(*session, *binary, sudo, context.options, kMachineClock.Monotonic() + timeout * 6);
    if (!uploaded.ok()) {
      out.status = uploaded.WithContext("uploading the agent to " + host.name);
      co_return out;
    }
    out.notes.push_back("installed clusterctl-agent " + binary->sha256.substr(0, 16) + " (" + binary->arch + ")");
  }
  out.status = Status::Internal("unreachable");
  co_return out;
}

}  // namespace clusterctl
