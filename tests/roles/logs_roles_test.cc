// The rsyslog role (roles/rsyslog.yaml, templates/rsyslog-*.conf) planned
// for fake facts: every host forwards over TCP with a disk-assisted queue
// to the logs group's host or its own log_server; the log host listens and
// writes per-host files, rotated; each file is checked by rsyslogd before it
// replaces the old one and a change restarts rsyslog; a value that would
// break out of the rsyslog configuration is refused at planning.
#include <doctest/doctest.h>

#include <algorithm>

#include "tests/roles/role_harness.h"

namespace clusterctl {
namespace {

using testing::Planned;

std::string LogsInventory(const std::string& vars = "  x_unused: null\n", const std::string& logs_group = "  logs: {hosts: [head]}\n") {
  return "cluster: lab\nconnection: {user: root}\nvars:\n" + vars +
         "hosts:\n  head: {address: 10.0.0.1}\n  gpu01: {address: 10.0.0.11}\n"
         "  gpu02: {address: 10.0.0.12, vars: {log_server: logs.site.example, log_server_port: 6514}}\n"
         "groups:\n  controller: {hosts: [head]}\n  compute: {hosts: [gpu01, gpu02]}\n" + logs_group;
}

nlohmann::json Facts() { return {{"os", {{"id", "debian"}, {"family", "debian"}}}, {"systemd", true}}; }

class LogsRoles : public testing::RoleHarness {
 public:
  explicit LogsRoles(const std::string& vars = "  log_retry_seconds: 10\n",
                     const std::string& logs_group = "  logs: {hosts: [head]}\n")
      : testing::RoleHarness(LogsInventory(vars, logs_group), {"rsyslog"}) {}
  Planned PlanHost(const std::string& host) {
    return Plan(host, std::map<std::string, nlohmann::json>{{"head", Facts()}, {"gpu01", Facts()}, {"gpu02", Facts()}});
  }
};

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const char* kForward = "/etc/rsyslog.d/60-clusterctl-forward.conf";
const char* kLogHost = "/etc/rsyslog.d/50-clusterctl-log-host.conf";

}  // namespace

TEST_CASE("rsyslog: a host forwards every message over TCP to the log host, queued on disk, retried forever") {
  LogsRoles roles;
  Planned p = roles.PlanHost("gpu01");
  const std::string& conf = p.files.at(kForward);
  CHECK(conf.rfind("# Written by clusterctl (role rsyslog) for gpu01;", 0) == 0);
  CHECK(Contains(conf, "action(type=\"omfwd\" name=\"clusterctl-forward\" target=\"10.0.0.1\" port=\"514\"\n"
                       "       protocol=\"tcp\""));
  CHECK(Contains(conf, "queue.type=\"LinkedList\" queue.filename=\"clusterctl-forward\" queue.spoolDirectory=\"/var/spool/rsyslog\""));
  CHECK(Contains(conf, "queue.maxDiskSpace=\"1G\" queue.saveOnShutdown=\"on\""));
  CHECK(Contains(conf, "action.resumeRetryCount=\"-1\" action.resumeInterval=\"10\")"));
  CHECK(p.params.at("rsyslog/forwarding")["state"] == "present");
  CHECK(p.params.at("rsyslog/forwarding")["validate"] == nlohmann::json::array({"rsyslogd", "-N1", "-f", "%s"}));
  CHECK(p.notify.at("rsyslog/forwarding") == std::vector<std::string>{"restart rsyslog"});
  // Not the log host: its listener and rotation are absent, no logrotate.
  CHECK(p.params.at("rsyslog/log host configuration")["state"] == "absent");
  CHECK(p.params.at("rsyslog/log rotation")["state"] == "absent");
  CHECK(std::find(p.steps.begin(), p.steps.end(), "rsyslog/logrotate package") == p.steps.end());
}

TEST_CASE("rsyslog: the log host listens on TCP and writes per-host files, rotated; it forwards nothing") {
  LogsRoles roles;
  Planned p = roles.PlanHost("head");
  const std::string& conf = p.files.at(kLogHost);
  CHECK(Contains(conf, "module(load=\"imtcp\" maxSessions=\"200\")\n"));
  CHECK(Contains(conf, "string=\"/var/log/cluster/%$.sender%/messages\")"));
  CHECK(Contains(conf, "action(type=\"omfile\" file=\"/var/log/cluster/head/messages\""));  // its own
  CHECK(p.params.at("rsyslog/log host configuration")["validate"] == nlohmann::json::array({"rsyslogd", "-N1", "-f", "%s"}));
  const std::string& rotate = p.files.at("/etc/logrotate.d/clusterctl-cluster-logs");
  CHECK(Contains(rotate, "/var/log/cluster/*/messages {\n\tdaily\n\trotate 14\n"));
  CHECK(Contains(rotate, "/usr/lib/rsyslog/rsyslog-rotate\n"));
  CHECK(p.params.at("rsyslog/forwarding")["state"] == "absent");
  CHECK(std::find(p.steps.begin(), p.steps.end(), "rsyslog/logrotate package") != p.steps.end());
}

TEST_CASE("rsyslog: the log host's input is bound to its address, open to its senders' addresses only, rate-limited") {
  LogsRoles roles;
  Planned p = roles.PlanHost("head");
  const std::string& conf = p.files.at(kLogHost);
  // gpu01 forwards here; gpu02 to its own log_server, so it is no sender.
  CHECK(Contains(conf, "\n$AllowedSender TCP,10.0.0.11\n"));
  CHECK(Contains(conf, "input(type=\"imtcp\" address=\"10.0.0.1\" port=\"514\" ruleset=\"clusterctl-received\"\n"
                       "      ratelimit.interval=\"10\" ratelimit.burst=\"20000\")\n"));
  CHECK_FALSE(Contains(conf, "%HOSTNAME"));  // never the name a line claims
  CHECK_FALSE(Contains(conf, "input(type=\"imtcp\" port="));  // no input on every address
  // The directory is the sender's inventory name, by the address it connects from; else one bucket.
  CHECK(Contains(conf, "set $.sender = lookup(\"clusterctl-senders\", $fromhost-ip);\n"));
  CHECK(p.files.at("/etc/rsyslog.d/clusterctl-senders.json") ==
        "{\"version\": 1, \"nomatch\": \"_unknown\", \"type\": \"string\", \"table\": [\n"
        "  {\"index\": \"10.0.0.11\", \"value\": \"gpu01\"}\n"
        "]}\n");
  CHECK(p.notify.at("rsyslog/log host senders") == std::vector<std::string>{"restart rsyslog"});
  const auto at = [&](const std::string& step) { return std::find(p.steps.begin(), p.steps.end(), step); };
  CHECK(at("rsyslog/log host senders") < at("rsyslog/log host configuration"));  // checked against it
  // Not the log host: no senders file.
  CHECK(roles.PlanHost("gpu01").params.at("rsyslog/log host senders")["state"] == "absent");
  LogsRoles tight("  log_rate_limit_interval: 5\n  log_rate_limit_burst: 1000\n");
  CHECK(Contains(tight.PlanHost("head").files.at(kLogHost), "ratelimit.interval=\"5\" ratelimit.burst=\"1000\""));
}

TEST_CASE("rsyslog: a log host nobody forwards to opens no input and keeps its own messages") {
  LogsRoles alone("  log_server: logs.site.example\n  x_unused: null\n", "  logs: {hosts: [head]}\n");
  // Every host has its own log_server here, so none forwards to head.
  const std::string conf = alone.PlanHost("head").files.at(kLogHost);
  CHECK_FALSE(Contains(conf, "imtcp"));
  CHECK_FALSE(Contains(conf, "\n$AllowedSender TCP"));
  CHECK(Contains(conf, "file=\"/var/log/cluster/head/messages\""));
}

TEST_CASE("rsyslog: a host's log_server is a site's own log server; without either, the role does nothing") {
  LogsRoles roles;
  const std::string conf = roles.PlanHost("gpu02").files.at(kForward);  // a copy: the plan is a temporary
  CHECK(Contains(conf, "target=\"logs.site.example\" port=\"6514\""));
  LogsRoles none("  log_retry_seconds: 10\n", "");
  CHECK(none.PlanHost("gpu01").roles.empty());
  CHECK(none.PlanHost("gpu02").roles == std::vector<std::string>{"rsyslog"});
}

TEST_CASE("rsyslog: a value that would leave its place in the rsyslog configuration is refused at planning") {
  // A path by its own syntax, but a property (%...%) in rsyslog's template string.
  LogsRoles roles("  log_dir: /var/log/%programname%\n");
  const std::string errors = roles.PlanErrors("head", Facts());
  CHECK(Contains(errors, "rsyslog-log-host.conf.mustache"));
  CHECK(Contains(errors, "log_dir"));
  CHECK(Contains(errors, "rsyslog's configuration could read them as quoting"));
}

}  // namespace clusterctl
