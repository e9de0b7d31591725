#include "controller/engine/alertmanager_silences.h"

#include <map>
#include <mutex>
#include <utility>

#include "common/strings.h"
#include "controller/catalog/value_syntax.h"
#include "controller/engine/monitoring_api.h"
#include "controller/remote/sleep.h"

namespace clusterctl {
namespace {

// A variable of `host`: the inventory's value, else the role's default.
nlohmann::json VariableOf(const Host& host, const Role& role, const std::string& name) {
  if (host.vars.contains(name) && !host.vars[name].is_null()) return host.vars[name];
  return role.vars.contains(name) ? role.vars[name] : nlohmann::json();
}

std::string Unbracketed(std::string address) {
  if (address.size() > 2 && address.front() == '[' && address.back() == ']') return address.substr(1, address.size() - 2);
  return address;
}

class AlertmanagerSilences final : public MaintenanceSilences {
 public:
  AlertmanagerSilences(AlertmanagerSite site, const Clock& clock, HttpCall http)
      : site_(std::move(site)), clock_(clock), http_(std::move(http)) {}

  Task<Result<std::string>> Open(const std::string& host, const std::string& comment, int64_t ends_at_ms) override {
    std::optional<NodeHealth> before = co_await HealthNow(host);
    SilenceRequest request{site_.cluster, host, comment, clock_.NowMs(), ends_at_ms};
    Result<HttpReply> reply =
        co_await http_(site_.target, "POST", "/api/v2/silences", SilenceBody(request), site_.request_timeout);
    if (!reply.ok()) co_return reply.status();
    if (reply->status != 200) co_return Refused("the silence", *reply);
    Result<std::string> id = ReadSilenceId(reply->body);
    if (id.ok()) {
      std::lock_guard<std::mutex> lock(mutex_);
      before_[*id] = std::move(before);
    }
    co_return id;
  }

  Task<Status> Close(const std::string& host, const std::string& id, int64_t /*opened_at_ms*/,
                     WaitReport& wait) override {
    std::optional<NodeHealth> before;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = before_.find(id);
      if (it != before_.end()) before = std::move(it->second);
      before_.erase(id);
    }
    co_await WaitUntilHealthy(host, before, wait);
    Result<HttpReply> reply =
        co_await http_(site_.target, "DELETE", "/api/v2/silence/" + id, "", site_.request_timeout);
    if (!reply.ok()) co_return reply.status();
    if (reply->status != 200) co_return Refused("ending the silence", *reply);
    co_return Status::Ok();
  }

 private:
  // What Prometheus sees of `host` now; nullopt when it cannot say (not
  // running yet: a first deploy installs it in the same run).
  Task<std::optional<NodeHealth>> HealthNow(const std::string& host) {
    Result<HttpReply> reply = co_await http_(site_.prometheus, "GET", NodeHealthTarget(host), "", site_.request_timeout);
    if (!reply.ok() || reply->status != 200) co_return std::nullopt;
    Result<NodeHealth> health = ReadNodeHealth(reply->body);
    if (!health.ok()) co_return std::nullopt;
    co_return *health;
  }

  // Until nothing of `host` holds the silence (StillHolding, against what
  // was healthy `before`), for at most clear_wait, then one poll more for
  // Alertmanager to take the resolved alerts. A Prometheus that cannot be
  // asked ends the wait (the silence ends anyway: monitoring never holds
  // maintenance up).
  Task<void> WaitUntilHealthy(const std::string& host, const std::optional<NodeHealth>& before, WaitReport& wait) {
    if (!AnythingCanHold(before)) co_return;
    const int64_t back_s = clock_.NowMs() / 1000;
    const auto deadline = clock_.Monotonic() + site_.clear_wait;
    while (true) {
      Result<HttpReply> reply =
          co_await http_(site_.prometheus, "GET", UnhealthyTarget(host, back_s), "", site_.request_timeout);
      if (!reply.ok() || reply->status != 200) co_return;
      Result<std::vector<Unhealthy>> now = ReadUnhealthy(reply->body);
      if (!now.ok()) co_return;
      const std::vector<std::string> holding = StillHolding(before, *now);
      if (holding.empty()) {
        co_await SleepFor(clock_, site_.clear_poll);
        co_return;
      }
      if (clock_.Monotonic() >= deadline) {
        wait.GaveUp(Join(holding, ", "));
        co_return;
      }
      wait.Still(Join(holding, ", "));
      co_await SleepFor(clock_, site_.clear_poll);
    }
  }

  static Status Refused(const std::string& what, const HttpReply& reply) {
    return Status::Unavailable("Alertmanager refused " + what + " (HTTP " + std::to_string(reply.status) + ": " +
                               Printable(reply.body, 200) + ")");
  }

  AlertmanagerSite site_;
  const Clock& clock_;
  HttpCall http_;
  std::mutex mutex_;
  std::map<std::string, std::optional<NodeHealth>> before_;  // by silence id, until it is closed
};

// Where `host` serves what `role` declares as PREFIX_listen / PREFIX_port.
HttpTarget ServiceOn(const Host& host, const Role& role, const std::string& prefix, uint16_t default_port) {
  HttpTarget target;
  target.address = host.address;
  const nlohmann::json port = VariableOf(host, role, prefix + "_port");
  target.port = port.is_number_integer() ? static_cast<uint16_t>(port.get<int>()) : default_port;
  const nlohmann::json listen = VariableOf(host, role, prefix + "_listen");
  if (listen.is_string()) {  // ADDRESS:PORT (its syntax is checked at load); an empty address is every address
    const std::string text = listen.get<std::string>();
    const size_t colon = text.rfind(':');
    const std::string address = colon == std::string::npos ? "" : text.substr(0, colon);
    const std::string digits = colon == std::string::npos ? "" : text.substr(colon + 1);
    if (!address.empty() && address != "0.0.0.0" && address != "[::]") target.address = address;
    if (!digits.empty() && digits.size() <= 5 && digits.find_first_not_of("0123456789") == std::string::npos) {
      target.port = static_cast<uint16_t>(std::stoi(digits));
    }
  }
  target.address = Unbracketed(target.address);
  return target;
}

}  // namespace

std::optional<AlertmanagerSite> FindAlertmanager(const Inventory& inventory, const Catalog& catalog) {
  const Role* alertmanager = catalog.Find("alertmanager");
  const Role* monitoring = catalog.Find("monitoring");
  const std::vector<std::string> hosts = inventory.MembersOf("monitoring");
  if (!alertmanager || !monitoring || hosts.empty()) return std::nullopt;
  const Host* host = inventory.FindHost(hosts.front());
  if (!host) return std::nullopt;
  AlertmanagerSite site;
  site.cluster = inventory.cluster_name;
  site.target = ServiceOn(*host, *alertmanager, "alertmanager", 9093);
  site.prometheus = ServiceOn(*host, *monitoring, "prometheus", 9090);
  const nlohmann::json clear_wait = VariableOf(*host, *alertmanager, "maintenance_silence_clear_wait");
  if (clear_wait.is_string()) {  // its syntax (a duration) is checked at load
    if (std::optional<int64_t> ms = PrometheusDurationMs(clear_wait.get<std::string>())) {
      site.clear_wait = std::chrono::milliseconds(*ms);
    }
  }
  return site;
}

std::unique_ptr<MaintenanceSilences> MakeAlertmanagerSilences(AlertmanagerSite site, const Clock& clock,
                                                              HttpCall http) {
  return std::make_unique<AlertmanagerSilences>(std::move(site), clock, std::move(http));
}

}  // namespace clusterctl
