// Secrets the run knows of, wherever they came from, never leave it in clear
// (issue 47, item 6): a secret file's content read from beside the inventory
// is masked in step errors, output, events and history; a file clusterctl
// takes over that held a secret inline shows it in no diff, backup or state.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/json_text.h"
#include "controller/engine/deploy_harness.h"

namespace clusterctl::testing {
namespace {

using agent_protocol::IncomingRequest;
using agent_protocol::ResourceRequest;

constexpr char kFilePassword[] = "smtp-Pa55word-from-a-file";
constexpr char kInlinePassword[] = "inline-Hunter2-in-the-old-file";

// Sends the SMTP password from a file beside the inventory as a secret file,
// writes the adopted alertmanager.yml (secret: it may hold one inline, as
// role alertmanager declares it), and a plain file that once held the
// password, then runs a command that fails.
const char* kMailRole = R"(description: a mail password and a file taken over
applies_to: [controller]
steps:
  - name: smtp password
    file: {path: /etc/prometheus/smtp-password, source: smtp.pw, mode: "0600", secret: true}
  - name: configuration
    file: {path: /etc/prometheus/alertmanager.yml, content: "route: {receiver: none}\n", secret: true}
  - name: notes
    file: {path: /etc/mail-notes, content: "no password here\n"}
  - name: send a test mail
    command: {argv: [/usr/local/bin/send-test-mail]}
)";

// Everything a run leaves behind: its events (the API and --json), and the
// state's database files (history, step records, backups).
std::string Everything(const DeployHarness& h) {
  std::string all;
  for (const auto& e : h.events->events()) all += JsonText(e) + "\n";
  for (const auto& entry : std::filesystem::directory_iterator(h.state_dir())) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    all += bytes.str();
  }
  return all;
}

struct MailSite {
  DeployHarness h{Roles{{"mail", kMailRole}}};
  MailSite() {
    std::ofstream(std::filesystem::path(h.state_dir()).parent_path() / "smtp.pw") << kFilePassword << "\n";
    FakeNode& node = h.fleet.node("node01");
    node.files["/etc/prometheus/alertmanager.yml"] =
        std::string("global:\n  smtp_auth_password: '") + kInlinePassword + "'\n";
    node.files["/etc/mail-notes"] = std::string("old notes: the password is ") + kFilePassword + "\n";
    node.intercept = [](const IncomingRequest& in) -> Interception {
      auto* resource = std::get_if<ResourceRequest>(&in.request);
      if (!resource || resource->kind != "command") return {};
      agent_protocol::ResourceResult failed;
      failed.Fail(std::string("send-test-mail: 535 authentication failed for password ") + kFilePassword);
      failed.output = std::string("AUTH PLAIN ") + kFilePassword + "\n535 5.7.8 rejected\n";
      return agent_protocol::EncodeResourceReply(in.id, failed);
    };
  }
};

TEST_CASE("a secret read from a *_file is masked in a failed step's error and output, events and history") {
  MailSite site;
  DeploymentResult result = site.h.Deploy();
  const HostReport& node01 = ReportOf(result, "node01");
  REQUIRE(node01.failed == 1);
  const StepReport* failed = nullptr;
  for (const StepReport& step : node01.steps) {
    if (step.identity == "mail/send a test mail") failed = &step;
  }
  REQUIRE(failed);
  CHECK(failed->error.find("[secret file smtp.pw]") != std::string::npos);
  CHECK(failed->error.find(kFilePassword) == std::string::npos);
  CHECK(failed->output.find(kFilePassword) == std::string::npos);
  CHECK(node01.error.find(kFilePassword) == std::string::npos);
  CHECK(Everything(site.h).find(kFilePassword) == std::string::npos);
  // The node got the password itself: masking is for what leaves the run.
  CHECK(site.h.fleet.node("node01").files.at("/etc/prometheus/smtp-password") == std::string(kFilePassword) + "\n");
}

TEST_CASE("an adopted file with an inline password shows it in no plan, diff, backup or state") {
  MailSite site;
  DeploymentOptions plan;
  plan.check = true;
  DeploymentResult planned = site.h.Deploy(plan);
  for (const StepReport& step : ReportOf(planned, "node01").steps) {
    CAPTURE(step.identity);
    CHECK(step.diff.find(kInlinePassword) == std::string::npos);
    for (const std::string& difference : step.differences) CHECK(difference.find(kInlinePassword) == std::string::npos);
  }
  CHECK(Everything(site.h).find(kInlinePassword) == std::string::npos);
  site.h.Deploy();
  CHECK(site.h.fleet.node("node01").files.at("/etc/prometheus/alertmanager.yml") == "route: {receiver: none}\n");
  // No backup of the secret file; the plain file's backup masked.
  const std::string all = Everything(site.h);
  CHECK(all.find(kInlinePassword) == std::string::npos);
  CHECK(all.find(kFilePassword) == std::string::npos);
  CHECK(all.find("old notes: the password is [secret file smtp.pw]") != std::string::npos);
}

// A variable declared secret: true (a webhook URL carrying its token).
const char* kHookRole = R"(version: 3
description: posts to a webhook
applies_to: [controller]
vars:
  hook_url:
    default: ""
    type: string
    secret: true
    description: the webhook, its token in the path
steps:
  - name: post
    command: {argv: [/usr/local/bin/post-hook]}
)";

TEST_CASE("the value of a variable declared secret is masked in a failed step's error and the run's events") {
  const std::string url = "https://hooks.example.org/T0/B0/Tok3nInThePath";
  std::string inventory = kThreeNodeInventory;
  inventory.replace(inventory.find("hosts:"), 6, "vars:\n  hook_url: '" + url + "'\nhosts:");
  DeployHarness h(Roles{{"hook", kHookRole}}, inventory);
  h.fleet.node("node01").intercept = [url](const IncomingRequest& in) -> Interception {
    auto* resource = std::get_if<ResourceRequest>(&in.request);
    if (!resource || resource->kind != "command") return {};
    agent_protocol::ResourceResult failed;
    failed.Fail("post-hook: 404 from " + url);
    return agent_protocol::EncodeResourceReply(in.id, failed);
  };
  const DeploymentResult result = h.Deploy();
  const HostReport& node01 = ReportOf(result, "node01");
  REQUIRE(node01.failed == 1);
  CHECK(node01.error.find("[secret variable hook_url]") != std::string::npos);
  CHECK(Everything(h).find(url) == std::string::npos);
}

}  // namespace
}  // namespace clusterctl::testing
