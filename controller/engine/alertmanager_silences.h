// MaintenanceSilences over Alertmanager's HTTP API v2 (role alertmanager):
// POST /api/v2/silences with the matchers cluster=<cluster>, node=<host>;
// at the end, a bounded wait until Prometheus sees the node healthy again
// (every target of the node scraped since it came back and up, and no
// alert of the node that the maintenance raised: a node whose SSH answers
// may still be starting its exporters), then DELETE /api/v2/silence/<id>.
#pragma once

#include <chrono>
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
  std::chrono::milliseconds clear_wait{180000};  // the most Close waits for the node to be seen healthy
  std::chrono::milliseconds clear_poll{2000};
};

// The Alertmanager a deploy of `inventory` silences nodes in: the first
// host of the monitoring group, at its alertmanager_listen (its address
// when that names none) or its address and alertmanager_port; its
// Prometheus likewise (prometheus_listen, prometheus_port). nullopt
// when the inventory has no monitoring host or the catalog no alertmanager
// role: then nothing is silenced.
std::optional<AlertmanagerSite> FindAlertmanager(const Inventory& inventory, const Catalog& catalog);

std::unique_ptr<MaintenanceSilences> MakeAlertmanagerSilences(AlertmanagerSite site, const Clock& clock);

}  // namespace clusterctl
