// slurm_accounting: the inventory's objects checked, sacctmgr's outputs
// read, and the difference between them as sacctmgr commands; the kind on
// a fake sacctmgr (check runs only queries, a converged state runs nothing).
#include <doctest/doctest.h>

#include "agent/resources/resource.h"
#include "agent/resources/slurm_accounting_model.h"
#include "common/strings.h"
#include "tests/unit/fixture.h"
#include "tests/unit/test_paths.h"

namespace clusterctl::agent::slurm_accounting {
namespace {

// sacctmgr --parsable2 --noheader show ... for the queries of CurrentQueries,
// as Debian 12's Slurm 22.05 printed them on the testbed (e2e_slurm prints
// them): a user's association shows the QoS it inherits.
// The last columns (GrpTRESMins, MaxTRESPA; GrpTRES, GrpTRESMins, MaxTRES of
// an association) came with issue 50, empty as sacctmgr shows no limit.
const char* kQosShown = "normal|0||||||||\nstandard|10|00:10:00||cpu=64|||DenyOnLimit||\n";
const char* kAccountsShown = "physics|physics group\nroot|default root account\n";
const char* kAssociationsShown =
    "root||||1|normal||||\n"
    "root|root|||1|normal||||\n"
    "physics|||root|10|standard|standard|||\n"
    "physics|alice|||1|standard|standard|||\n";
const char* kUsersShown = "alice|physics\nroot|root\n";

nlohmann::json Inventory() {
  return nlohmann::json::parse(R"({
    "cluster": "Testbed",
    "qos": [{"name": "standard", "priority": 10, "max_wall": "00:10:00", "max_tres_per_user": "cpu=64",
             "flags": ["DenyOnLimit"]}],
    "accounts": [{"name": "physics", "description": "physics group", "fairshare": 10, "qos": ["standard"],
                  "default_qos": "standard"}],
    "users": [{"name": "alice", "account": "physics"}]
  })");
}

Current Shown(const std::string& qos = kQosShown, const std::string& associations = kAssociationsShown) {
  Result<Current> current = ParseCurrent({qos, kAccountsShown, associations, kUsersShown});
  REQUIRE(current.ok());
  return *current;
}

std::vector<Change> Diff(const nlohmann::json& inventory, const Current& current) {
  Result<Desired> desired = ParseDesired(inventory);
  INFO(desired.status().message());
  REQUIRE(desired.ok());
  return Difference(*desired, current);
}

std::string Problems(const nlohmann::json& inventory) { return ParseDesired(inventory).status().message(); }

}  // namespace

TEST_CASE("slurm accounting values: names, TRES and times as sacctmgr takes them, never an option") {
  CHECK(NameRefusal("physics").empty());
  CHECK(NameRefusal("gpu_long-2.x").empty());
  for (const char* bad : {"", "-i", "Physics", "a b", "a=b", "a,b", "a|b", "x;rm"}) {
    CAPTURE(bad);
    CHECK_FALSE(NameRefusal(bad).empty());
  }
  CHECK(TresRefusal("cpu=64,mem=256G,gres/gpu=8,gres/gpu:h100=4").empty());
  for (const char* bad : {"", "cpu", "cpu=", "cpu=4G", "cpu=4,cpu=5", "CPU=4", "cpu=-1", "gres/=2", "cpu=4 mem=1"}) {
    CAPTURE(bad);
    CHECK_FALSE(TresRefusal(bad).empty());
  }
  for (const char* good : {"60", "10:30", "01:00:00", "2-00", "2-12:30", "1-00:00:00", "UNLIMITED"}) {
    CAPTURE(good);
    CHECK(TimeRefusal(good).empty());
  }
  for (const char* bad : {"", "1h", "1:2:3:4", "-5", "1-", "a-1"}) {
    CAPTURE(bad);
    CHECK_FALSE(TimeRefusal(bad).empty());
  }
}

TEST_CASE("slurm accounting values compare in one form: minutes, TRES sorted in MiB, sets sorted") {
  CHECK(Canonical(ValueKind::kTime, "00:10:00") == Canonical(ValueKind::kTime, "10"));
  CHECK(Canonical(ValueKind::kTime, "1-00:00:00") == std::optional<std::string>("1440"));
  CHECK(Canonical(ValueKind::kTime, "00:00:30") == std::optional<std::string>("1"));  // seconds round up, as Slurm's
  CHECK(Canonical(ValueKind::kTime, "UNLIMITED") == std::optional<std::string>(""));
  CHECK(Canonical(ValueKind::kTres, "mem=1G,cpu=4") == Canonical(ValueKind::kTres, "cpu=4,mem=1024M"));
  CHECK(Canonical(ValueKind::kTres, "mem=1024") == std::optional<std::string>("mem=1024"));
  CHECK(Canonical(ValueKind::kNames, "b,a,b") == std::optional<std::string>("a,b"));
  CHECK(Canonical(ValueKind::kCount, "010") == std::optional<std::string>("10"));
  CHECK(Canonical(ValueKind::kFlags, "NoDecay,DenyOnLimit") == std::optional<std::string>("DenyOnLimit,NoDecay"));
  CHECK_FALSE(Canonical(ValueKind::kFlags, "Bogus"));
}

TEST_CASE("the inventory's objects are checked whole, each problem naming its item") {
  CHECK(ParseDesired(Inventory()).ok());
  CHECK(ParseDesired(Inventory())->cluster == "testbed");  // Slurm's lower-case ClusterName
  nlohmann::json bad = Inventory();
  bad["qos"][0]["grp_tres"] = "cpu=4G";
  bad["qos"][0]["max_wal"] = "10";
  bad["qos"][0]["flags"] = nlohmann::json::array({"DenyOnLimits"});
  bad["accounts"].push_back({{"name", "chem"}, {"parent", "bio"}, {"qos", {"gold"}}});
  bad["accounts"].push_back({{"name", "physics"}});
  bad["accounts"][0]["default_qos"] = "normal";
  bad["users"].push_back({{"name", "bob"}, {"account", "math"}, {"fairshare", "half"}});
  bad["users"].push_back({{"name", "carol"}});
  const std::string problems = Problems(bad);
  for (const char* expected : {"qos[0] (standard): grp_tres: 'cpu=4G' is not a TRES list",
                               "qos[0] (standard): unknown key 'max_wal'", "'DenyOnLimits' is not a QoS flag",
                               "accounts (chem): parent 'bio' is neither root nor in accounts",
                               "accounts[1] (chem): qos: QoS 'gold' is not in qos", "accounts[2] (physics): named twice",
                               "accounts[0] (physics): default_qos 'normal' is not one of its qos",
                               "users[1] (bob): account 'math' is neither root nor in accounts",
                               "users[1] (bob): fairshare: 'half' is not a share", "users[2] (carol): needs account"}) {
    CAPTURE(problems);
    CHECK(problems.find(expected) != std::string::npos);
  }
  nlohmann::json cycle = Inventory();
  cycle["accounts"] = {{{"name", "a"}, {"parent", "b"}}, {{"name", "b"}, {"parent", "a"}}};
  cycle["users"] = nlohmann::json::array();
  CHECK(Problems(cycle).find("form a cycle") != std::string::npos);
  CHECK(Problems({{"cluster", "-i"}}).find("cluster: '-i' is not a Slurm name") != std::string::npos);
}

TEST_CASE("on a fresh database: QoS, then accounts parents first, then users with their default account") {
  nlohmann::json inventory = Inventory();
  inventory["accounts"].insert(inventory["accounts"].begin(), nlohmann::json{{"name", "theory"}, {"parent", "physics"}});
  inventory["users"][0]["accounts"] = {"theory"};
  std::vector<Change> changes = Diff(inventory, Current{});
  std::vector<std::string> argvs;
  for (const Change& c : changes) argvs.push_back(Join(c.argv, " "));
  CHECK(argvs == std::vector<std::string>{
                     "sacctmgr -i add qos Name=standard Priority=10 MaxWall=10 MaxTRESPerUser=cpu=64 Flags=DenyOnLimit",
                     "sacctmgr -i add account Name=physics Cluster=testbed Parent=root Fairshare=10 QOS=standard "
                     "DefaultQOS=standard Description=physics group",
                     "sacctmgr -i add account Name=theory Cluster=testbed Parent=physics",
                     "sacctmgr -i add user Name=alice Account=physics Cluster=testbed DefaultAccount=physics",
                     "sacctmgr -i add user Name=alice Account=theory Cluster=testbed",
                 });
  CHECK(changes[0].what == "qos standard: add (Priority=10, MaxWall=00:10:00, MaxTRESPerUser=cpu=64, Flags=DenyOnLimit)");
}

TEST_CASE("what sacctmgr shows as the inventory names it is no difference") {
  CHECK(Diff(Inventory(), Shown()).empty());
  // The same limit written otherwise: minutes for HH:MM:SS.
  nlohmann::json same = Inventory();
  same["qos"][0]["max_wall"] = 10;
  CHECK(Diff(same, Shown()).empty());
}

TEST_CASE("one limit changed in the inventory changes exactly that limit") {
  nlohmann::json inventory = Inventory();
  inventory["qos"][0]["max_wall"] = "00:20:00";
  std::vector<Change> changes = Diff(inventory, Shown());
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].what == "qos standard: MaxWall 00:10:00 -> 00:20:00");
  CHECK(Join(changes[0].argv, " ") == "sacctmgr -i modify qos where Name=standard set MaxWall=20");

  // A TRES list is owned whole: a TRES it no longer names is cleared (-1).
  inventory = Inventory();
  inventory["qos"][0]["max_tres_per_user"] = "gres/gpu=2";
  changes = Diff(inventory, Shown());
  REQUIRE(changes.size() == 1);
  CHECK(Join(changes[0].argv, " ") == "sacctmgr -i modify qos where Name=standard set MaxTRESPerUser=gres/gpu=2,cpu=-1");
}

TEST_CASE("GPU limits (issue 50): QoS budgets and per-account caps, association limits; one changed is one field") {
  // Given an inventory with GPU limits on the QoS, the account and the user,
  nlohmann::json inventory = Inventory();
  inventory["qos"][0]["grp_tres_mins"] = "gres/gpu=600";
  inventory["qos"][0]["max_tres_per_account"] = "gres/gpu=8";
  inventory["accounts"][0]["grp_tres"] = "gres/gpu=16";
  inventory["accounts"][0]["grp_tres_mins"] = "gres/gpu=60000";
  inventory["users"][0]["grp_tres"] = "gres/gpu=4";
  inventory["users"][0]["max_tres_per_job"] = "gres/gpu:h100=2";
  // on a fresh database they are made with their objects,
  std::vector<std::string> argvs;
  for (const Change& c : Diff(inventory, Current{})) argvs.push_back(Join(c.argv, " "));
  CHECK(argvs[0] == "sacctmgr -i add qos Name=standard Priority=10 MaxWall=10 MaxTRESPerUser=cpu=64 Flags=DenyOnLimit "
                    "GrpTRESMins=gres/gpu=600 MaxTRESPerAccount=gres/gpu=8");
  CHECK(argvs[1] == "sacctmgr -i add account Name=physics Cluster=testbed Parent=root Fairshare=10 QOS=standard "
                    "DefaultQOS=standard GrpTRES=gres/gpu=16 GrpTRESMins=gres/gpu=60000 Description=physics group");
  CHECK(argvs[2] == "sacctmgr -i add user Name=alice Account=physics Cluster=testbed DefaultAccount=physics "
                    "GrpTRES=gres/gpu=4 MaxTRESPerJob=gres/gpu:h100=2");
  // as sacctmgr then shows them they are no difference,
  const std::string qos = "normal|0||||||||\nstandard|10|00:10:00||cpu=64|||DenyOnLimit|gres/gpu=600|gres/gpu=8\n";
  const std::string associations =
      "root||||1|normal||||\n"
      "root|root|||1|normal||||\n"
      "physics|||root|10|standard|standard|gres/gpu=16|gres/gpu=60000|\n"
      "physics|alice|||1|standard|standard|gres/gpu=4||gres/gpu:h100=2\n";
  CHECK(Diff(inventory, Shown(qos, associations)).empty());
  // and each one changed in the inventory changes exactly that field.
  inventory["users"][0]["grp_tres"] = "gres/gpu=2";
  std::vector<Change> changes = Diff(inventory, Shown(qos, associations));
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].what == "user alice in account physics: GrpTRES gres/gpu=4 -> gres/gpu=2");
  CHECK(Join(changes[0].argv, " ") ==
        "sacctmgr -i modify user where Name=alice Account=physics Cluster=testbed set GrpTRES=gres/gpu=2");
  inventory["users"][0]["grp_tres"] = "gres/gpu=4";
  inventory["qos"][0]["grp_tres_mins"] = "gres/gpu=1200";
  changes = Diff(inventory, Shown(qos, associations));
  REQUIRE(changes.size() == 1);
  CHECK(Join(changes[0].argv, " ") == "sacctmgr -i modify qos where Name=standard set GrpTRESMins=gres/gpu=1200");
  inventory["qos"][0]["grp_tres_mins"] = "gres/gpu=600";
  inventory["accounts"][0]["grp_tres_mins"] = "gres/gpu=30000";
  changes = Diff(inventory, Shown(qos, associations));
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].what == "account physics: GrpTRESMins gres/gpu=60000 -> gres/gpu=30000");
  // A GPU limit a bad value would break is refused at its item.
  inventory["users"][0]["grp_tres_mins"] = "gres/gpu=1h";
  CHECK(Problems(inventory).find("users[0] (alice): grp_tres_mins: 'gres/gpu=1h' is not a TRES list") !=
        std::string::npos);
}

TEST_CASE("an account's association, description and a user's default account change in place") {
  nlohmann::json inventory = Inventory();
  inventory["accounts"][0]["fairshare"] = 20;
  inventory["accounts"][0]["description"] = "physics and astronomy";
  inventory["accounts"].push_back({{"name", "chem"}});
  inventory["users"][0] = {{"name", "alice"}, {"account", "chem"}, {"accounts", {"physics"}}, {"fairshare", 5}};
  std::vector<std::string> argvs;
  for (const Change& c : Diff(inventory, Shown())) argvs.push_back(Join(c.argv, " "));
  CHECK(argvs == std::vector<std::string>{
                     "sacctmgr -i modify account where Name=physics Cluster=testbed set Fairshare=20",
                     "sacctmgr -i modify account where Name=physics set Description=physics and astronomy",
                     "sacctmgr -i add account Name=chem Cluster=testbed Parent=root",
                     "sacctmgr -i add user Name=alice Account=chem Cluster=testbed Fairshare=5",
                     "sacctmgr -i modify user where Name=alice Account=physics Cluster=testbed set Fairshare=5",
                     "sacctmgr -i modify user where Name=alice set DefaultAccount=chem",
                 });
}

TEST_CASE("what the inventory does not name is left alone, unless prune; never root or normal") {
  const std::string associations = std::string(kAssociationsShown) +
                                   "old|||root|1|normal||||\n"
                                   "older|||old|1|normal||||\n"
                                   "older|dave|||1|normal||||\n"
                                   "physics|erin|||1|standard||||\n"
                                   "physics|alice|gpu||1|standard||||\n";  // a partition's: not managed
  const Current current = Shown(std::string(kQosShown) + "scavenger|0||||||||\n", associations);
  CHECK(Diff(Inventory(), current).empty());
  nlohmann::json prune = Inventory();
  prune["prune"] = true;
  std::vector<std::string> argvs;
  for (const Change& c : Diff(prune, current)) argvs.push_back(Join(c.argv, " "));
  CHECK(argvs == std::vector<std::string>{
                     "sacctmgr -i delete user where Name=dave Cluster=testbed",
                     "sacctmgr -i delete user where Name=erin Cluster=testbed",
                     "sacctmgr -i delete account where Name=older Cluster=testbed",  // the child first
                     "sacctmgr -i delete account where Name=old Cluster=testbed",
                     "sacctmgr -i delete qos where Name=scavenger",
                 });
}

TEST_CASE("sacctmgr output of another shape is an error, not a guess") {
  CHECK_FALSE(ParseCurrent({"normal|0\n", "", "", ""}).ok());
  CHECK(ParseCurrent({"normal|0|||||||||\n", "", "", ""}).status().message().find("QoS line has 11 columns, not 10") !=
        std::string::npos);
  Result<Current> described = ParseCurrent({"", "lab|a|b\n", "", ""});  // a description may hold '|'
  REQUIRE(described.ok());
  CHECK(described->account_descriptions.at("lab") == "a|b");
}

namespace {

// sacctmgr on a fake node: the queries answer `shown` (or fail when
// `reachable` is false); anything else succeeds and is recorded.
class FakeSacctmgr : public ResourceHost {
 public:
  std::vector<std::string> shown = {kQosShown, kAccountsShown, kAssociationsShown, kUsersShown};
  bool reachable = true;
  CommandResult Run(const CommandSpec& spec, bool mutating) override {
    log_.push_back({spec.argv, mutating, 0});
    CommandResult r;
    r.exit_code = 0;
    if (spec.argv.size() > 4 && spec.argv[3] == "show") {
      if (!reachable) {
        r.exit_code = 1;
        r.stderr_data = "sacctmgr: error: Problem talking to the database: Connection refused";
        return r;
      }
      const std::vector<std::string> objects = {"qos", "account", "association", "user"};
      for (size_t i = 0; i < objects.size(); ++i) {
        if (spec.argv[4] == objects[i]) r.stdout_data = shown[i];
      }
    }
    return r;
  }
};

ResourceOutcome Run(const nlohmann::json& params, bool apply, ResourceHost& host) {
  return RunResource({"slurm_accounting", params, "", apply}, host);
}

}  // namespace

TEST_CASE("slurm_accounting: check only queries; apply runs the difference; converged runs nothing") {
  nlohmann::json params = Inventory();
  params["qos"][0]["priority"] = 20;
  FakeSacctmgr check;
  ResourceOutcome planned = Run(params, false, check);
  REQUIRE_FALSE(planned.failed);
  CHECK(planned.differences == std::vector<std::string>{"qos standard: Priority 10 -> 20"});
  CHECK_FALSE(check.RanMutatingCommand());
  CHECK(check.log().size() == 4);

  FakeSacctmgr apply;
  ResourceOutcome applied = Run(params, true, apply);
  REQUIRE_FALSE(applied.failed);
  CHECK(applied.differences == planned.differences);
  REQUIRE(apply.log().size() == 5);
  CHECK(Join(apply.log().back().argv, " ") == "sacctmgr -i modify qos where Name=standard set Priority=20");

  FakeSacctmgr converged;
  ResourceOutcome again = Run(Inventory(), true, converged);
  CHECK_FALSE(again.changed);
  CHECK_FALSE(converged.RanMutatingCommand());
}

TEST_CASE("slurm_accounting: before slurmdbd answers, plan counts everything missing and deploy fails") {
  FakeSacctmgr down;
  down.reachable = false;
  ResourceOutcome planned = Run(Inventory(), false, down);
  REQUIRE_FALSE(planned.failed);
  REQUIRE(planned.differences.size() == 4);
  CHECK(planned.differences[0].find("accounting not readable yet") == 0);
  CHECK(planned.differences[1].find("qos standard: add") == 0);
  CHECK_FALSE(down.RanMutatingCommand());
  ResourceOutcome applied = Run(Inventory(), true, down);
  CHECK(applied.failed);
  CHECK(applied.error.find("Connection refused") != std::string::npos);
  CHECK_FALSE(down.RanMutatingCommand());

  FakeSacctmgr empty;  // nothing named, nothing to prune: not even a query
  CHECK_FALSE(Run({{"cluster", "testbed"}}, false, empty).changed);
  CHECK(empty.log().empty());
}

}  // namespace clusterctl::agent::slurm_accounting

namespace clusterctl::agent::slurm_accounting {

TEST_CASE("sacctmgr of Slurm 24.11.5 (Debian 13 testbed, a fresh database) reads as 22.05's: root and normal only") {
  std::vector<std::string> outputs;
  for (const char* query : {"qos", "account", "association", "user"}) {
    outputs.push_back(testing::ReadFixture(testing::FixturesDir() + "/slurm-24.11/sacctmgr-show-" + query +
                                           "--24.11.5-testbed-trixie--1.txt"));
  }
  Result<Current> current = ParseCurrent(outputs);
  REQUIRE_MESSAGE(current.ok(), current.status().message());
  CHECK(current->qos.size() == 1);
  CHECK(current->qos.at("normal").at("Priority") == "0");
  CHECK(current->account_descriptions.at("root") == "default root account");
  CHECK(current->associations.count({"root", "root"}) == 1);
  CHECK(current->default_accounts.at("root") == "root");
  // The inventory's objects are all still to be made on it, and nothing of Slurm's own is touched.
  Result<Desired> desired = ParseDesired(Inventory());
  REQUIRE(desired.ok());
  const std::vector<Change> changes = Difference(*desired, *current);
  CHECK_FALSE(changes.empty());
  for (const Change& change : changes) {
    CAPTURE(change.what);
    CHECK(std::find(change.argv.begin(), change.argv.end(), "delete") == change.argv.end());
  }
}

// The fixtures above are captures of these queries: the capture script asks
// sacctmgr exactly what the resource asks (the 24.11 fixtures were once
// edits because the two had drifted apart).
TEST_CASE("tests/e2e/capture_slurm.sh runs the resource's own sacctmgr queries") {
  const std::string script = testing::ReadFixture(testing::SourceDir() + "/tests/e2e/capture_slurm.sh");
  for (const std::vector<std::string>& argv : CurrentQueries("$cluster")) {
    REQUIRE(argv.size() > 4);
    const std::vector<std::string> lead(argv.begin(), argv.begin() + 4), rest(argv.begin() + 4, argv.end());
    CHECK(script.find("\"" + Join(lead, " ") + " $1\"") != std::string::npos);
    const std::string call = "show \"" + Join(rest, " ") + "\"";
    CHECK_MESSAGE(script.find(call) != std::string::npos, "capture_slurm.sh lacks: " << call);
  }
}

}  // namespace clusterctl::agent::slurm_accounting
