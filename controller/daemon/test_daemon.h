// A daemon for the daemon's unit tests: a free loopback port, three hosts
// nobody listens for, its own state, and helpers that speak raw HTTP to it.
#pragma once

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "controller/daemon/daemon.h"
#include "controller/daemon/http_test_client.h"
#include "controller/daemon/token.h"
#include "controller/state/test_util.h"

namespace clusterctl::testing {

// A site role with one command on every node ("echo").
inline const char* const kEchoRole = R"(description: one command on every node
applies_to: [all]
tags: [site]
steps:
  - name: echo
    command: {argv: [echo, hi]}
)";

// A daemon over three hosts nobody listens for (port 1 on 127.0.0.x:
// connection refused at once), with its own state.
struct TestDaemon {
  TempDir dir;
  SystemClock clock;
  SystemFilesystemProbe filesystem;
  std::ostringstream log;
  Logger logger{log};  // info: no per-request debug lines from the HTTP thread while a test reads `log`
  std::unique_ptr<Daemon> daemon;
  std::string token;          // admin
  std::string read_token;     // scope read
  std::string metrics_token;  // scope metrics
  StatePaths paths;

  // `sessions`: a fleet of fake nodes in place of SSH; `role`: the text of
  // the site's one role, "echo"; `hosts`: node01 to node0`hosts` (at most 9);
  // `groups`: the inventory's groups section, if any; `metrics_listener`:
  // a metrics listener on another free loopback port.
  explicit TestDaemon(SessionFactory* sessions = nullptr, const std::string& role = "", int hosts = 3,
                      const std::string& groups = "", bool metrics_listener = false) {
    const std::string inventory = dir.path() + "/cluster.yaml";
    const std::string last = std::to_string(hosts);
    std::ofstream(inventory) << "version: 1\ncluster: t\nconnection:\n  user: root\n  port: 1\n"
                                "hosts:\n  node[01-0" + last + "]:\n    address: 127.0.0.[21-2" + last + "]\n" + groups;
    if (!role.empty()) {
      std::filesystem::create_directories(dir.path() + "/roles");
      std::ofstream(dir.path() + "/roles/echo.yaml") << role;
    }
    paths.dir = dir.path() + "/state";
    DaemonOptions options;
    options.inventory_path = inventory;
    options.port = 0;
    options.paths = paths;
    options.command_line = "clusterctl serve (test)";
    options.sessions = sessions;
    if (metrics_listener) {
      options.metrics_address = "127.0.0.1";
      options.metrics_port = 0;
    }
    auto created = Daemon::Create(options, clock, filesystem, logger);
    REQUIRE(created.ok());
    daemon = std::move(created).value();
    daemon->Start();
    token = ReadToken(TokenScope::kAdmin);
    read_token = ReadToken(TokenScope::kRead);
    metrics_token = ReadToken(TokenScope::kMetrics);
  }

  std::string ReadToken(TokenScope scope) const {
    std::string value;
    std::ifstream in(paths.secrets() + "/" + TokenSecretName(scope));
    std::getline(in, value);
    return value;
  }

  ~TestDaemon() { daemon.reset(); }

  // Sends `request` from `source` (a loopback address) and reads to the
  // server's close.
  std::string Exchange(const std::string& request, const char* source = nullptr) {
    RawClient client(daemon->port(), {source});
    client.Send(request);
    return client.Receive(std::chrono::seconds(30));  // a POST that starts a job may answer slowly under the sanitizers
  }
  // Every request asks for the connection to close, so Exchange reads to the
  // server's close instead of waiting out its own timeout.
  std::string Get(const std::string& path, const std::string& auth, const char* source = nullptr) {
    const std::string authorization = auth.empty() ? "" : "Authorization: " + auth + "\r\n";
    return Exchange(Request("GET", path, authorization + "Connection: close\r\n"), source);
  }
  std::string Post(const std::string& path, const std::string& body, const std::string& type = "application/json") {
    return PostAs(token, path, body, type);
  }
  std::string PostAs(const std::string& bearer, const std::string& path, const std::string& body,
                     const std::string& type = "application/json") {
    return Exchange(Request("POST", path, "Authorization: Bearer " + bearer + "\r\nContent-Type: " + type +
                                              "\r\nConnection: close\r\n", body));
  }
  // A GET to the metrics listener.
  std::string GetMetricsListener(const std::string& path, const std::string& auth) {
    const std::string authorization = auth.empty() ? "" : "Authorization: " + auth + "\r\n";
    RawClient client(daemon->metrics_port());
    client.Send(Request("GET", path, authorization + "Connection: close\r\n"));
    return client.Receive(std::chrono::seconds(30));
  }
  // The job as /api/v1/jobs shows it once it has ended (null after 60 s).
  nlohmann::json WaitForJob(int64_t job) {
    for (int i = 0; i < 600; ++i) {
      const nlohmann::json jobs = nlohmann::json::parse(BodyOf(Get("/api/v1/jobs", "Bearer " + token)));
      for (const auto& j : jobs["recent"]) {
        if (j["job"] == job) return j;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return nullptr;
  }
};

}  // namespace clusterctl::testing
