#include "controller/engine/alertmanager_silences.h"

#include <utility>

#include "controller/engine/alertmanager_api.h"
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

  Task<Status> Close(const std::string& host, const std::string& id) override {
    co_await WaitUntilClear(host);
    Result<HttpReply> reply =
        co_await HttpRequest(site_.target, "DELETE", "/api/v2/silence/" + id, "", site_.request_timeout);
    if (!reply.ok()) co_return reply.status();
    if (reply->status != 200) co_return Refused("ending the silence", *reply);
    co_return Status::Ok();
  }

 private:
  // Until Alertmanager lists no firing alert of `host`, for at most
  // clear_wait; an unreadable answer ends the wait (the silence ends anyway).
  Task<void> WaitUntilClear(const std::string& host) {
    const auto deadline = clock_.Monotonic() + site_.clear_wait;
    while (true) {
      Result<HttpReply> reply = co_await HttpRequest(site_.target, "GET", NodeAlertsTarget(site_.cluster, host), "",
                                                     site_.request_timeout);
      if (!reply.ok() || reply->status != 200) co_return;
      Result<size_t> firing = ReadFiringAlerts(reply->body);
      if (!firing.ok() || *firing == 0 || clock_.Monotonic() >= deadline) co_return;
      co_await SleepFor(clock_, site_.clear_poll);
    }
  }

  static Status Refused(const std::string& what, const HttpReply& reply) {
    std::string said = reply.body.substr(0, 200);
    for (char& c : said) {
      if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    }
    return Status::Unavailable("Alertmanager refused " + what + " (HTTP " + std::to_string(reply.status) + ": " + said + ")");
  }

  AlertmanagerSite site_;
  const Clock& clock_;
};

}  // namespace

std::optional<AlertmanagerSite> FindAlertmanager(const Inventory& inventory, const Catalog& catalog) {
  const Role* role = catalog.Find("alertmanager");
  const std::vector<std::string> monitoring = inventory.MembersOf("monitoring");
  if (!role || monitoring.empty()) return std::nullopt;
  const Host* host = inventory.FindHost(monitoring.front());
  if (!host) return std::nullopt;
  AlertmanagerSite site;
  site.cluster = inventory.cluster_name;
  site.target.address = host->address;
  const nlohmann::json port = VariableOf(*host, *role, "alertmanager_port");
  site.target.port = port.is_number_integer() ? static_cast<uint16_t>(port.get<int>()) : 9093;
  const nlohmann::json listen = VariableOf(*host, *role, "alertmanager_listen");
  if (listen.is_string()) {  // ADDRESS:PORT (its syntax is checked at load); an empty address is every address
    const std::string text = listen.get<std::string>();
    const size_t colon = text.rfind(':');
    const std::string address = colon == std::string::npos ? "" : text.substr(0, colon);
    const std::string digits = colon == std::string::npos ? "" : text.substr(colon + 1);
    if (!address.empty() && address != "0.0.0.0" && address != "[::]") site.target.address = address;
    if (!digits.empty() && digits.size() <= 5 && digits.find_first_not_of("0123456789") == std::string::npos) {
      site.target.port = static_cast<uint16_t>(std::stoi(digits));
    }
  }
  site.target.address = Unbracketed(site.target.address);
  return site;
}

std::unique_ptr<MaintenanceSilences> MakeAlertmanagerSilences(AlertmanagerSite site, const Clock& clock) {
  return std::make_unique<AlertmanagerSilences>(std::move(site), clock);
}

}  // namespace clusterctl
