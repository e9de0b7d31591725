// The checks a role brings, each judged by its own phase of validation_run:
// nfs.export and nfs.mounts (service_run.cc).
#include "controller/validate/checks/common.h"

namespace clusterctl::checks {
namespace {

const CheckRegistration kNfsExport(
    {.name = "nfs.export",
     .scope = kNode,
     .summary = "the client's NFS export answers: a file written from here reads back on another client",
     .rank = 230});

const CheckRegistration kNfsMounts(
    {.name = "nfs.mounts",
     .scope = kNode,
     .summary = "every nfs_mounts entry mounted from its server and export, written and read back",
     .rank = 240});

}  // namespace
}  // namespace clusterctl::checks
