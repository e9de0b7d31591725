// clusterctl-agent: runs on a node for the duration of one controller
// session, speaking the agent protocol (docs/agent-protocol.md) on stdin and
// stdout. It is never a daemon and never listens on a socket.
//
//   clusterctl-agent            serve the protocol on stdin/stdout
//   clusterctl-agent --facts    print this node's facts as JSON (for humans)
//   clusterctl-agent --version
#include <signal.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>

#include "agent/facts/gather.h"
#include "agent/protocol/frame.h"
#include "agent/protocol/messages.h"
#include "agent/request_handler.h"
#include "common/json_text.h"

#ifndef CLUSTERCTL_VERSION
#define CLUSTERCTL_VERSION "dev"
#endif

namespace {

bool WriteAll(int fd, const std::string& data) {
  size_t offset = 0;
  while (offset < data.size()) {
    ssize_t n = ::write(fd, data.data() + offset, data.size() - offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    offset += static_cast<size_t>(n);
  }
  return true;
}

int Serve() {
  using namespace clusterctl;
  utsname u{};
  ::uname(&u);
  agent_protocol::Hello hello;
  hello.protocol = agent_protocol::kProtocolVersion;
  hello.agent_version = CLUSTERCTL_VERSION;
  hello.pid = ::getpid();
  hello.euid = ::geteuid();
  hello.arch = u.machine;
  hello.hostname = u.nodename;
  const agent_protocol::Frame hello_frame = agent_protocol::EncodeHello(hello);
  if (!WriteAll(1, agent_protocol::Preamble() + agent_protocol::EncodeFrame(hello_frame.header))) return 1;

  agent_protocol::FrameDecoder decoder(false);
  RequestHandler handler(agent::HangupWatch(0));  // stdin closes when the controller goes
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(0, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;  // the controller went away
    decoder.Feed(std::string_view(buffer, static_cast<size_t>(n)));
    while (auto frame = decoder.Next()) {
      RequestHandler::Response response = handler.Handle(*frame);
      if (!WriteAll(1, agent_protocol::EncodeFrame(response.header, response.body))) return 1;
      if (response.shutdown) return 0;
    }
    if (!decoder.status().ok()) {
      const agent_protocol::Frame error =
          agent_protocol::EncodeError(nullptr, agent_protocol::kBadFrame, decoder.status().message());
      WriteAll(1, agent_protocol::EncodeFrame(error.header));
      return 2;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);
  ::umask(022);
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "--version") {
    std::cout << "clusterctl-agent " << CLUSTERCTL_VERSION << " protocol " << clusterctl::agent_protocol::kProtocolVersion
              << "\n";
    return 0;
  }
  if (mode == "--facts") {
    std::cout << clusterctl::JsonText(clusterctl::facts::GatherFacts({}), 2)
              << "\n";
    return 0;
  }
  if (!mode.empty()) {
    std::cerr << "usage: clusterctl-agent [--facts | --version]\n";
    return 2;
  }
  return Serve();
}
