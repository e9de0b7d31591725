#include "controller/engine/alertmanager_silences.h"

#include <utility>

#include "common/strings.h"
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
  AlertmanagerSilences(AlertmanagerSite site, const Clock& clock) : site_(std::move(site)), clock_(clock) {}

  Task<Result<std::string>> Open(const std::string& host, const std::string& comment, int64_t ends_at_ms) override {
    SilenceRequest request{site_.cluster, host, comment, clock_.NowMs(), ends_at_ms};
    Result<HttpReply> reply =
        co_await HttpRequest(site_.target, "POST", "/api/v2/silences", SilenceBody(request), site_.request_timeout);
    if (!reply.ok()) co_return reply.status();
    if (reply->status != 200) co_return Refused("the silence", *reply);
    co_return ReadSilenceId(reply->body);
  }

  Task<Status> Close(const std::string& host, const std::string& id, int64_t opened_at_ms) override {
    co_await WaitUntilHealthy(host, opened_at_ms);
    Result<HttpReply> reply =
        co_await HttpRequest(site_.target, "DELETE", "/api/v2/silence/" + id, "", site_.request_timeout);
    if (!reply.ok()) co_return reply.status();
    if (reply->status != 200) co_return Refused("ending the silence", *reply);
    co_return Status::Ok();
  }

 private:
  // Until Prometheus sees `host` healthy since now (MaintenanceHoldsTarget),
  // for at most clear_wait, then one poll more for Alertmanager to take the
  // resolved alerts. A Prometheus that cannot be asked ends the wait (the
  // silence ends anyway: monitoring never holds maintenance up).
  Task<void> WaitUntilHealthy(const std::string& host, int64_t opened_at_ms) {
    const int64_t back_s = clock_.NowMs() / 1000;
    const auto deadline = clock_.Monotonic() + site_.clear_wait;
    while (clock_.Monotonic() < deadline) {
      const int64_t opened_ago_s = (clock_.NowMs() - opened_at_ms) / 1000 + 1;
      Result<HttpReply> reply = co_await HttpRequest(
          site_.prometheus, "GET", MaintenanceHoldsTarget(host, back_s, opened_ago_s), "", site_.request_timeout);
      if (!reply.ok() || reply->status != 200) co_return;
      Result<size_t> holds = ReadVectorSize(reply->body);
      if (!holds.ok()) co_return;
      co_await SleepFor(clock_, site_.clear_poll);
      if (*holds == 0) co_return;
    }
  }

  static Status Refused(const std::string& what, const HttpReply& reply) {
    return Status::Unavailable("Alertmanager refused " + what + " (HTTP " + std::to_string(reply.status) + ": " +
                               Printable(reply.body, 200) + ")");
  }

  AlertmanagerSite site_;
  const Clock& clock_;
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
  return site;
}

std::unique_ptr<MaintenanceSilences> MakeAlertmanagerSilences(AlertmanagerSite site, const Clock& clock) {
  return std::make_unique<AlertmanagerSilences>(std::move(site), clock);
}

}  // namespace clusterctl
