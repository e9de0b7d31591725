// Test support for the kinds' controller sides: a KindHost that answers
// resource calls from a script and records what a kind did through it
// (the engine's own tests run the kinds through HostRun on the fake fleet).
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>  // Boost.Asio coroutine headers use std::exchange without including it
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include "controller/engine/kinds/step_kind.h"
#include "controller/state/test_util.h"

namespace clusterctl::testing {

class RecordingHost final : public KindHost, public KindTransport, public KindIntents, public KindReport {
 public:
  KindTransport& transport() override { return *this; }
  KindIntents& intents() override { return *this; }
  KindReport& report() override { return *this; }

  ExecutionOptions opts;
  FakeClock fake_clock;
  std::vector<agent_protocol::ResourceResult> answers;  // for Call, in order (then an empty result)
  std::vector<std::pair<nlohmann::json, bool>> calls;   // the params sent, apply
  std::vector<agent_protocol::UploadChunkRequest> chunks;
  std::vector<nlohmann::json> saved_details;
  std::vector<StepReport> failed;
  std::vector<std::string> started, notes, opened_intents;  // Started, Note, OpenIntentsOwedBy's steps
  std::vector<std::string> silenced;                  // NodeGoingDown's reasons
  std::vector<std::string> waits;                     // BeginWait's events, in words
  std::map<std::string, nlohmann::json> memos;
  std::map<std::string, std::vector<std::string>> credits;  // CreditUpFront's, by step identity

  Host node;                                          // host(): no bmc unless a test gives it one
  NodePower* node_power = nullptr;                    // power()
  std::vector<std::string> events;                    // Event's: "LEVEL KIND: MESSAGE"

  const ExecutionOptions& options() const override { return opts; }
  const Clock& clock() const override { return fake_clock; }
  const Host& host() const override { return node; }
  NodePower* power() override { return node_power; }
  void Event(const std::string& level, const std::string& kind, const std::string& message) override {
    events.push_back(level + " " + kind + ": " + message);
  }
  Task<agent_protocol::ResourceResult> Call(const PlannedStep& step, bool apply) override {
    calls.emplace_back(step.params, apply);
    co_return calls.size() <= answers.size() ? answers[calls.size() - 1] : agent_protocol::ResourceResult{};
  }
  Task<Status> SendChunk(agent_protocol::UploadChunkRequest request) override {
    chunks.push_back(std::move(request));
    co_return Status::Ok();
  }
  bool SessionLost() const override { return false; }
  AgentSession& agent() override { throw std::logic_error("no session in this test"); }
  void Disconnect() override {}
  Task<bool> Reconnect() override { co_return false; }
  Intent* OwedIntent(const std::string&) override { return nullptr; }
  std::string NotifiedInPlan(const std::string&) const override { return ""; }
  void CloseIntent(const std::string&) override {}
  Task<Status> SaveIntentDetail(Intent& intent, nlohmann::json detail) override {
    saved_details.push_back(detail);
    intent.detail = std::move(detail);
    co_return Status::Ok();
  }
  bool Stopping(const std::string&) override { return false; }
  void Started(const std::string& what) override { started.push_back(what); }
  void CountOk() override {}
  void Changed(StepReport) override {}
  void Fail(StepReport report) override { failed.push_back(std::move(report)); }
  void FailUnreachable(const std::string& step, const std::string& error) override {
    failed.push_back(FailedStep(step, false, error));
  }
  void Record(const PlannedStep&, StepStatus, bool, int64_t, const std::string&) override {}
  bool WillRun(const PlannedStep& step) const override { return !step.skipped; }
  void Note(const std::string& message) override { notes.push_back(message); }
  Task<bool> OpenIntentsOwedBy(const PlannedStep& step) override {
    opened_intents.push_back(step.Identity());
    co_return true;
  }
  void CreditUpFront(const PlannedStep& step, std::vector<std::string> differences) override {
    credits[step.Identity()] = std::move(differences);
  }
  nlohmann::json& KindMemo(const std::string& kind) override { return memos[kind]; }
  WaitReport BeginWait(const std::string& what) override {
    return WaitReport([this](const WaitEvent& e) { waits.push_back(WaitText(e)); }, fake_clock, "node", what);
  }
  Task<void> NodeGoingDown(const std::string& why, std::chrono::seconds /*down_for*/) override {
    silenced.push_back(why);
    co_return;
  }
};

// Runs a kind's coroutine to its end on a private io_context.
template <class T>
T RunTask(Task<T> task) {
  boost::asio::io_context io;
  std::optional<T> result;
  boost::asio::co_spawn(io, std::move(task), [&](std::exception_ptr e, T value) {
    if (e) std::rethrow_exception(e);
    result = std::move(value);
  });
  io.run();
  return std::move(*result);
}

}  // namespace clusterctl::testing
