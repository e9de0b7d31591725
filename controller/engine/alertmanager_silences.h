// MaintenanceSilences over Alertmanager's HTTP API v2 (role alertmanager):
// POST /api/v2/silences with the matchers cluster=<cluster>, node=<host>,
// after asking Prometheus what of the node is healthy then (NodeHealth);
// at the end, a wait bounded by clear_wait until Prometheus sees healthy
// again what the maintenance may have broken (monitoring_api.h,
// StillHolding: a target up before, scraped since the node came back and
// up; no alert of the node that was not active before), then DELETE
// /api/v2/silence/<id>. What was failing before, or never up, does not
// hold it; at the bound the silence ends with the wait's warning naming
// what still fails.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/clock.h"
#include "controller/catalog/role.h"
#include "controller/engine/maintenance_silences.h"
#include "controller/remote/http_client.h"
#include "inventory/model.h"

namespace clusterctl {

struct AlertmanagerSite {
  HttpTarget target;
  HttpTarget prometheus;  // the one that sends this Alertmanager its alerts
  std::string cluster;  // the `cluster` label Prometheus gives every alert
  std::chrono::milliseconds request_timeout{5000};
  // The most Close waits for the node to be seen healthy: the role
  // alertmanager's maintenance_silence_clear_wait.
  std::chrono::milliseconds clear_wait{60000};
  std::chrono::milliseconds clear_poll{2000};
};

// The Alertmanager a deploy of `inventory` silences nodes in: the first
// host of the monitoring group, at its alertmanager_listen (its address
// when that names none) or its address and alertmanager_port; its
// Prometheus likewise (prometheus_listen, prometheus_port). nullopt
// when the inventory has no monitoring host or the catalog no alertmanager
// role: then nothing is silenced.
std::optional<AlertmanagerSite> FindAlertmanager(const Inventory& inventory, const Catalog& catalog);

// How the silences reach Alertmanager and Prometheus: HttpRequest, or a
// test's fake.
using HttpCall = std::function<Task<Result<HttpReply>>(HttpTarget, std::string, std::string, std::string,
                                                       std::chrono::milliseconds)>;

std::unique_ptr<MaintenanceSilences> MakeAlertmanagerSilences(AlertmanagerSite site, const Clock& clock,
                                                              HttpCall http = HttpRequest);

}  // namespace clusterctl
