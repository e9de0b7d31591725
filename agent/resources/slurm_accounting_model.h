// Slurm's accounting objects (QoS, accounts, users and their associations)
// as the inventory names them, as sacctmgr shows them, and the sacctmgr
// commands that take the one to the other: the pure part of the
// slurm_accounting resource kind (slurm_accounting.cc runs the commands).
// slurm_accounting_values.cc: the fields and their values; _desired.cc:
// the inventory's objects; _current.cc: sacctmgr's; _diff.cc: the commands.
//
// Contract of the difference: a field the inventory sets is owned whole (a
// TRES string set to "cpu=4" clears a gres/gpu limit set by hand); a field
// it leaves out is left as it is; an object it does not name is left alone
// unless `prune` asks to delete it (never the root account, the root user
// or the normal QoS). Every name is checked here (the agent trusts no
// caller), and reaches sacctmgr as one argument of an argument vector.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace clusterctl::agent::slurm_accounting {

// Why a value is not what sacctmgr takes ("" when it is). Shared with the
// inventory's value syntaxes (controller/catalog/value_syntax.cc), so a bad
// value is refused at the inventory's file:line before any host is touched.
// A QoS, account or user name: [a-z0-9_][a-z0-9_.-]*, at most 64 (Slurm
// stores these names in lower case: an upper-case name would differ forever).
std::string NameRefusal(std::string_view name);
// NAME=COUNT[,NAME=COUNT...]: cpu=64,mem=256G,gres/gpu=8 (a size suffix
// K M G T P only for memory-like TRES: mem, vmem, fs/disk, bb/...).
std::string TresRefusal(std::string_view tres);
// Slurm's time: MINUTES, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, or UNLIMITED.
std::string TimeRefusal(std::string_view time);

// kNames: QoS names (a set); kFlags: a QoS's flags (a set of kQosFlags).
enum class ValueKind { kCount, kTime, kTres, kShare, kNames, kName, kText, kFlags };

// One setting of a QoS or an association: its key in the inventory, its
// name in `sacctmgr ... set`, its column in `sacctmgr show ... format=`.
struct Field {
  const char* key;
  const char* set_name;
  const char* column;
  ValueKind kind;
};

// The fields of a QoS and of an association (an account's or a user's), in
// the order commands set them and queries show them.
const std::vector<Field>& QosFields();
const std::vector<Field>& AssociationFields();
// sacctmgr(1)'s QoS flags (Slurm 22.05 to 24.x): DenyOnLimit, NoDecay, ...
const std::set<std::string>& QosFlags();
// An account's parent (its association's) and description (the account's own).
extern const Field kParentField;
extern const Field kDescriptionField;

// The names Slurm makes itself, never pruned.
inline constexpr const char* kRoot = "root";  // the account and the user
inline constexpr const char* kNormalQos = "normal";

struct Setting {
  const Field* field = nullptr;
  std::string text;       // as the inventory wrote it (for messages)
  std::string canonical;  // compared with sacctmgr's (Canonical)
};

struct Qos {
  std::string name;
  std::vector<Setting> settings;
};

struct Account {
  std::string name;
  std::string parent = "root";
  std::optional<std::string> description;
  std::vector<Setting> settings;  // of its association
};

struct User {
  std::string name;
  std::string default_account;
  std::vector<std::string> accounts;  // the default one first
  std::vector<Setting> settings;      // of each of its associations
};

struct Desired {
  std::string cluster;
  std::vector<Qos> qos;
  std::vector<Account> accounts;  // parents before children
  std::vector<User> users;
  bool prune = false;
};

// The resource's parameters (cluster, qos, accounts, users, prune) checked
// whole: every problem, each naming its item ("users[1] (bob): account
// 'phys' is not in accounts"), in one InvalidArgument.
Result<Desired> ParseDesired(const nlohmann::json& params);

// What sacctmgr shows, each row's columns by name (CurrentQueries).
struct Current {
  std::map<std::string, std::map<std::string, std::string>> qos;           // by name
  std::map<std::string, std::string> account_descriptions;                 // every account
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::string>> associations;  // (account, user)
  std::map<std::string, std::string> default_accounts;                     // by user
};

// The read-only sacctmgr commands (argv) whose outputs ParseCurrent reads, in order.
std::vector<std::vector<std::string>> CurrentQueries(const std::string& cluster);
// Their outputs (--parsable2 --noheader), in the same order.
Result<Current> ParseCurrent(const std::vector<std::string>& outputs);

// A value as sacctmgr shows it or the inventory sets it, in one form both
// compare in: counts and minutes as digits, TRES sorted with memory in MiB,
// names sorted; "" for no limit. Nullopt when it is no value of `kind`.
std::optional<std::string> Canonical(ValueKind kind, std::string_view text);

struct Change {
  std::string what;               // one line for plan and the recap
  std::vector<std::string> argv;  // the sacctmgr command that makes it
};

// The changes, in an order sacctmgr accepts: QoS, accounts (parents first),
// users, then what prune deletes (users, accounts children first, QoS).
std::vector<Change> Difference(const Desired& desired, const Current& current);

}  // namespace clusterctl::agent::slurm_accounting
