// Test support: ipmitool as a fake ProcessRunner. Each call is kept as
// "ADDRESS ACTION" (the BMC after -H, the argument vector's last word:
// status, cycle, on, list) and answered by the test's `answer`, typically
// with what OpenIPMI's ipmi_sim printed (tests/fixtures/captured).
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "controller/power/local_process.h"

namespace clusterctl::testing {

class FakeIpmitool final : public ProcessRunner {
 public:
  using Answer = std::function<ProcessOutput(const std::string& address, const std::string& action)>;
  explicit FakeIpmitool(Answer answer) : answer_(std::move(answer)) {}

  ProcessOutput Run(const std::vector<std::string>& argv, std::chrono::milliseconds) override {
    std::string address;
    for (size_t i = 0; i + 1 < argv.size(); ++i) {
      if (argv[i] == "-H") address = argv[i + 1];
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      calls_.push_back(address + " " + argv.back());
    }
    return answer_(address, argv.back());
  }

  std::vector<std::string> Calls() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return calls_;
  }

 private:
  Answer answer_;
  mutable std::mutex mutex_;
  std::vector<std::string> calls_;
};

}  // namespace clusterctl::testing
