# Sourced by slurm_test.sh after slurm_site_checks.sh (functions tb, on01,
# check; alice and bob exist on node01-03, UIDs 2001 and 2002): the
# accounting objects the inventory names (issue 36), enforced
# (AccountingStorageEnforce=associations,limits,qos): alice's association is
# physics with QoS standard (MaxWall 10 minutes, DenyOnLimit); bob has none.
shown() { on01 "sacctmgr -n -P show $*"; }
qos=$(shown qos where name=standard format=Name,Priority,MaxWall,MaxTRESPU,Flags)
check "sacctmgr shows QoS standard as the inventory names it ($qos)" test "$qos" = "standard|10|00:10:00|cpu=64|DenyOnLimit"
physics=$(shown assoc where account=physics format=User,ParentName,Fairshare,QOS,DefaultQOS | paste -sd';')
check "... account physics under root with its share and QoS, alice and carol (the directory's) in it ($physics)" \
  test "$physics" = "|root|10|budget,gpu,standard|standard;alice||1|budget,gpu,standard|standard;carol||1|budget,gpu,standard|standard"
check "... alice's default account physics ($(shown user where name=alice format=User,DefaultAccount))" \
  test "$(shown user where name=alice format=User,DefaultAccount)" = "alice|physics"
check "... and root keeps its own association ($(shown assoc where user=root format=Account,User))" \
  test "$(shown assoc where user=root format=Account,User)" = "root|root"

ids=$(on01 "cd /tmp && runuser -u alice -- srun -N2 id" | paste -sd,)
check "alice runs srun -N2 id under her association (got $ids)" \
  test "$ids" = "uid=2001(alice) gid=2001(alice) groups=2001(alice),uid=2001(alice) gid=2001(alice) groups=2001(alice)"
charged() { on01 "sacct -n -X -P -u alice -S 2020-01-01 --name=id -o Account,QOS,NNodes" | tail -1; }
for i in $(seq 20); do [ -n "$(charged)" ] && break; sleep 0.5; done
check "sacct shows her job on 2 nodes charged to physics with QoS standard ($(charged))" test "$(charged)" = "physics|standard|2"
refused=$(on01 "cd /tmp && timeout 30 runuser -u bob -- srun -N1 true" 2>&1)
check "bob, without an association, is refused (${refused//$'\n'/ })" grep -q 'Invalid account or account/partition combination' <<<"$refused"
over=$(on01 "cd /tmp && timeout 30 runuser -u alice -- srun -N1 --time=00:20:00 true" 2>&1)
check "alice's job asking 20 minutes, over standard's MaxWall, is refused (${over//$'\n'/ })" grep -q 'Job violates accounting/QOS policy' <<<"$over"
# The four queries the slurm_accounting kind reads, as this Slurm prints them.
for q in "qos format=Name,Priority,MaxWall,GrpTRES,MaxTRESPU,MaxTRES,MaxJobsPU,Flags,GrpTRESMins,MaxTRESPA" "account format=Account,Description" \
  "association where Cluster=testbed format=Account,User,Partition,ParentName,Fairshare,QOS,DefaultQOS,GrpTRES,GrpTRESMins,MaxTRES" "user format=User,DefaultAccount"; do
  on01 "sacctmgr --parsable2 --noheader show $q" | sed "s/^/# sacctmgr show ${q%% *}: /"
done
