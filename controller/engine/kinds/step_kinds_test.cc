// The kinds' controller sides on their own: registered for agent kinds,
// the copy's planning and upload, the service's restart probe and the
// reboot's follow-up rules, against a recording KindHost (the engine's
// tests run them through HostRun on the fake fleet).
#include <fstream>
#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it

#include <doctest/doctest.h>

#include "agent/resources/schema.h"
#include "common/sha256.h"
#include "controller/engine/kinds/step_kind.h"
#include "controller/engine/kinds/recording_kind_host.h"

namespace clusterctl {
namespace {

using agent_protocol::ResourceResult;
using testing::RecordingHost;
using testing::RunTask;

struct PlannedFixture {
  Role role;
  RoleStep step;
  PlannedStep planned;
  PlannedFixture(const std::string& kind, nlohmann::json params) {
    role.name = "r";
    step.name = "s";
    step.kind = kind;
    step.params = std::move(params);
    planned.role = &role;
    planned.step = &step;
    planned.kind = kind;
    planned.params = step.params;
  }
};

}  // namespace

TEST_CASE("every kind with a controller side is an agent kind; the others get the defaults") {
  const std::vector<std::string> expected = {"assert", "copy", "file", "package", "reboot", "repository", "service",
                                             "slurm_accounting"};
  CHECK(StepKindsWithControllerSide() == expected);
  for (const std::string& kind : StepKindsWithControllerSide()) {
    CAPTURE(kind);
    CHECK(resources::FindResourceSpec(kind) != nullptr);
  }
  const StepKind& package = FindStepKind("package");
  CHECK_FALSE(package.IsPrecondition());
  CHECK_FALSE(package.IsFollowUp());
  CHECK(FindStepKind("assert").IsPrecondition());
  CHECK(FindStepKind("reboot").IsFollowUp());
}

TEST_CASE("copy plans the source's sha256 and size, reading each source once") {
  testing::TempDir dir;
  std::ofstream(dir.path() + "/bundle.tgz") << "payload";
  Inventory inventory;
  inventory.base_dir = dir.path();
  PlanInputs inputs;
  inputs.inventory = &inventory;
  Host host;
  host.name = "node01";
  Diagnostics diagnostics;
  std::map<std::string, std::pair<std::string, uint64_t>> digests;
  const std::vector<const nlohmann::json*> stack;
  PlannedFixture f("copy", {{"path", "/opt/bundle.tgz"}, {"source", "bundle.tgz"}});
  KindPlanning planning{f.step, host, stack, inputs, diagnostics, digests};
  nlohmann::json params = f.step.params;
  FindStepKind("copy").Plan(planning, params, f.planned);
  CHECK(diagnostics.error_count() == 0);
  CHECK(f.planned.copy_source == dir.path() + "/bundle.tgz");
  CHECK(params["sha256"] == Sha256Hex("payload"));
  CHECK(params["size"] == 7);
  CHECK(digests.size() == 1);

  nlohmann::json missing = {{"path", "/opt/x"}, {"source", "absent.tgz"}};
  FindStepKind("copy").Plan(planning, missing, f.planned);
  CHECK(diagnostics.error_count() == 1);
  CHECK_FALSE(missing.contains("sha256"));
}

TEST_CASE("copy uploads what the node lacks, resuming after a matching prefix, then applies again") {
  testing::TempDir dir;
  const std::string source = dir.path() + "/driver.run";
  const std::string content(10'000, 'd');
  std::ofstream(source) << content;
  PlannedFixture f("copy", {{"path", "/opt/driver.run"}});
  f.planned.copy_source = source;
  const StepKind& copy = FindStepKind("copy");

  RecordingHost fresh;
  fresh.answers = {ResourceResult{}};  // the apply after the upload
  ResourceResult need;
  need.Differs("file does not exist");
  need.upload = agent_protocol::UploadNeed{0, Sha256Hex("")};
  ResourceResult done = RunTask(copy.AfterCall(fresh, f.planned, need));
  REQUIRE(fresh.chunks.size() == 1);
  CHECK(fresh.chunks[0].offset == 0);
  CHECK(fresh.chunks[0].data == content);
  CHECK(fresh.chunks[0].path == "/opt/driver.run");
  REQUIRE(fresh.calls.size() == 1);
  CHECK(fresh.calls[0].second);  // applied
  CHECK(done.changed);

  RecordingHost resumed;
  ResourceResult partial = need;
  partial.upload = agent_protocol::UploadNeed{4'000, Sha256Hex(content.substr(0, 4'000))};
  ResourceResult again = RunTask(copy.AfterCall(resumed, f.planned, partial));
  REQUIRE(resumed.chunks.size() == 1);
  CHECK(resumed.chunks[0].offset == 4'000);
  CHECK(resumed.chunks[0].data == content.substr(4'000));
  CHECK(again.differences == std::vector<std::string>{"upload resumed at byte 4000"});

  RecordingHost mismatch;  // a partial file that is not a prefix of the source: from the start
  partial.upload->partial_sha256 = Sha256Hex("something else");
  (void)RunTask(copy.AfterCall(mismatch, f.planned, partial));
  REQUIRE(mismatch.chunks.size() == 1);
  CHECK(mismatch.chunks[0].offset == 0);

  RecordingHost current;  // nothing to upload: the outcome as it was, nothing sent
  ResourceResult ok;
  CHECK_FALSE(RunTask(copy.AfterCall(current, f.planned, ok)).changed);
  CHECK(current.chunks.empty());
  CHECK(current.calls.empty());
}

TEST_CASE("service: an owed restart is done when the unit runs a new invocation; else its invocation is recorded") {
  const StepKind& service = FindStepKind("service");
  PlannedFixture f("service", {{"name", "web"}, {"state", "restarted"}});
  Intent intent;
  intent.detail = {{"invocation_before", "inv-1"}};

  RecordingHost restarted;
  ResourceResult probe;
  probe.unit = agent_protocol::UnitState{"inv-2", "active", ""};
  restarted.answers = {probe};
  CHECK(RunTask(service.HandlerAlreadyDone(restarted, f.planned, intent)) == OwedProbe::kDone);
  CHECK(restarted.saved_details.empty());

  RecordingHost same;  // the process of the change's time: restart, its invocation recorded already
  probe.unit = agent_protocol::UnitState{"inv-1", "active", ""};
  same.answers = {probe};
  CHECK(RunTask(service.HandlerAlreadyDone(same, f.planned, intent)) == OwedProbe::kNotDone);
  CHECK(same.saved_details.empty());

  RecordingHost unrecorded;  // an intent of an older clusterctl: the invocation is recorded before the restart
  Intent old_intent;
  unrecorded.answers = {probe};
  CHECK(RunTask(service.HandlerAlreadyDone(unrecorded, f.planned, old_intent)) == OwedProbe::kNotDone);
  REQUIRE(unrecorded.saved_details.size() == 1);
  CHECK(unrecorded.saved_details[0] == nlohmann::json{{"invocation_before", "inv-1"}});

  RecordingHost started;  // not a restart: nothing probed
  PlannedFixture start("service", {{"name", "web"}, {"state", "running"}});
  CHECK(RunTask(service.HandlerAlreadyDone(started, start.planned, intent)) == OwedProbe::kNotDone);
  CHECK(started.calls.empty());
}

TEST_CASE("service: a change records the unit's process before it; a unit started since owes no restart") {
  const StepKind& service = FindStepKind("service");
  PlannedFixture f("service", {{"name", "slurmctld"}, {"state", "restarted"}});
  ResourceResult absent, running, failed;
  absent.unit = agent_protocol::UnitState{"", "inactive", ""};  // the package is not installed yet
  running.unit = agent_protocol::UnitState{"inv-7", "active", ""};
  failed.Fail("systemctl show failed");

  Intent intent;
  RecordingHost before_package;
  before_package.answers = {absent};
  CHECK(RunTask(service.HandlerNotified(before_package, f.planned, intent)));
  REQUIRE(before_package.calls.size() == 1);
  CHECK_FALSE(before_package.calls[0].second);  // a check, never an apply
  REQUIRE(before_package.saved_details.size() == 1);
  CHECK(before_package.saved_details[0] == nlohmann::json{{"invocation_before", "not running"}});
  intent.detail = before_package.saved_details[0];
  RecordingHost due;  // the package started it after the change
  due.answers = {running};
  CHECK(RunTask(service.HandlerAlreadyDone(due, f.planned, intent)) == OwedProbe::kDone);

  RecordingHost later_change;  // a change while inv-7 runs: inv-7 must be restarted
  later_change.answers = {running};
  CHECK(RunTask(service.HandlerNotified(later_change, f.planned, intent)));
  REQUIRE(later_change.saved_details.size() == 1);
  intent.detail = later_change.saved_details[0];
  RecordingHost still_due;
  still_due.answers = {running};
  CHECK(RunTask(service.HandlerAlreadyDone(still_due, f.planned, intent)) == OwedProbe::kNotDone);

  RecordingHost unknown;  // a probe that fails records nothing it cannot know: the restart stays owed
  unknown.answers = {failed};
  CHECK(RunTask(service.HandlerNotified(unknown, f.planned, intent)));
  REQUIRE(unknown.saved_details.size() == 1);
  CHECK(unknown.saved_details[0] == nlohmann::json{{"invocation_before", ""}});
  intent.detail = unknown.saved_details[0];
  RecordingHost after_unknown;
  after_unknown.answers = {running};
  CHECK(RunTask(service.HandlerAlreadyDone(after_unknown, f.planned, intent)) == OwedProbe::kNotDone);

  RecordingHost reload_needed;  // started since, but its unit file changed after: daemon-reload and restart
  intent.detail = {{"invocation_before", "not running"}};
  ResourceResult stale = running;
  stale.differences = {"unit files changed on disk (daemon-reload)", "restart"};
  reload_needed.answers = {stale};
  CHECK(RunTask(service.HandlerAlreadyDone(reload_needed, f.planned, intent)) == OwedProbe::kNotDone);

  RecordingHost not_a_restart;  // a handler that starts or stops: nothing probed
  PlannedFixture start("service", {{"name", "web"}, {"state", "running"}});
  CHECK(RunTask(service.HandlerNotified(not_a_restart, start.planned, intent)));
  CHECK(not_a_restart.calls.empty());
}

TEST_CASE("reboot follows the steps its `after` names, or any earlier change without it") {
  const StepKind& reboot = FindStepKind("reboot");
  PlannedFixture any("reboot", nlohmann::json::object());
  PlannedFixture named("reboot", {{"after", {"install driver"}}});
  Role role;
  RoleStep install, other;
  install.name = "install driver";
  other.name = "write motd";
  PlannedStep changed_install, changed_other;
  changed_install.step = &install;
  changed_other.step = &other;
  CHECK(reboot.Follows(any.planned, changed_other));
  CHECK(reboot.Follows(named.planned, changed_install));
  CHECK_FALSE(reboot.Follows(named.planned, changed_other));

  Intent asked, not_yet;
  asked.detail = {{"boot_before", "boot-1"}};
  CHECK(reboot.MayKeepNodeDown(asked));
  CHECK_FALSE(reboot.MayKeepNodeDown(not_yet));
  CHECK(reboot.FollowUpName() == "the reboot");
}

}  // namespace clusterctl
