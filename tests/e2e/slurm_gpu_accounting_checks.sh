# Sourced by slurm_test.sh after slurm_accounting_checks.sh (functions on01,
# check, now_ms; alice in physics, which may use the QoS gpu and budget):
# GPUs as the site accounts for them (issue 50). slurm.conf's
# AccountingStorageTRES lists gres/gpu and gres/gpu:h100, so a GPU job's
# sacct line shows its GPUs; QoS gpu (MaxTRESPerUser=gres/gpu=2,
# DenyOnLimit) refuses a 3-GPU job; QoS budget (GrpTRESMins=gres/gpu=1: one
# GPU-minute) holds a job once spent; sreport's job report shows physics's
# GPU time from the job records. About 30-80 s: the spending job
# (16 s), then slurmctld (priority/multifactor) applies a finished job's
# usage at its next PriorityCalcPeriod (1 minute here).
tres_has() { grep -qE "(^|,)$1(,|$)" <<<"$2"; }  # tres_has NAME=COUNT TRES-LIST
no_error() { ! grep -qiE 'error|invalid|unknown' <<<"$1"; }
tres=$(on01 "scontrol show config" | sed -n 's/^AccountingStorageTRES *= *//p')
check "slurmctld records GPU TRES, total and per type ($tres)" tres_has gres/gpu "$tres"
check "... gres/gpu:h100" tres_has gres/gpu:h100 "$tres"
gpu_job=$(on01 "cd /tmp && runuser -u alice -- srun --gres=gpu:2 sh -c 'echo \$SLURM_JOB_ID'")
alloc() { on01 "sacct -n -X -P -j '$gpu_job' -o AllocTRES"; }
for _ in $(seq 20); do [ -n "$(alloc)" ] && break; sleep 0.5; done
check "sacct shows alice's --gres=gpu:2 job holding gres/gpu=2 ($(alloc))" tres_has gres/gpu=2 "$(alloc)"
check "... and gres/gpu:h100=2" tres_has gres/gpu:h100=2 "$(alloc)"
# sreport's cluster reports (AccountUtilizationByUser) read slurmdbd's hourly
# rollups, which cover completed hours only: a job of this test shows there
# after the hour (below, the job report). Checked here is that the database
# knows the TRES sreport is asked for (it refuses an unknown one).
report=$(on01 "sreport -n -P cluster AccountUtilizationByUser -T gres/gpu start=now-1hours end=now" 2>&1)
check "sreport answers GPU time per account (-T gres/gpu) without an error (${report//$'\n'/ })" no_error "$report"
over=$(on01 "cd /tmp && timeout 30 runuser -u alice -- srun --qos=gpu -N2 --gpus=3 true" 2>&1)
check "QoS gpu (MaxTRESPerUser=gres/gpu=2, DenyOnLimit) refuses alice's 3-GPU job (${over//$'\n'/ })" \
  grep -q 'Job violates accounting/QOS policy' <<<"$over"
start=$(now_ms)
on01 "cd /tmp && runuser -u alice -- srun --qos=budget -N2 --gres=gpu:2 sleep 16"  # 64 GPU-seconds
# GPU time per account at once: sreport's job report sums each job's elapsed
# time times its GPUs from slurmdbd's job records, no rollup (one column per
# job size, then "% of cluster", left out of the sum). physics's
# GPU-seconds there are those of its jobs' own sacct lines (ElapsedRaw times
# gres/gpu), at least the 64 of the job just done. FlatView: one row per
# account, each job counted under its account's name (without it, a job
# counts only where its association lies strictly inside a listed one).
# The window: sreport clamps its end to now and rounds both ends to the
# nearest hour of local time (slurmdb_report_set_start_end_time), so at
# minute 0-29 of an hour the report ends at that hour's start and leaves
# this test's jobs out (0 GPU-seconds against sacct's 66 at 09:18 UTC, 64 =
# 64 at 09:54). sreport_tz gives sreport a zone half an hour ahead of UTC
# when the UTC minute is under 30, so its "now" always rounds up to the next
# hour: the report then covers every job up to now.
sreport_tz() { if [ "$(date -u +%-M)" -lt 30 ]; then echo UTC-00:30; else echo UTC; fi; }
physics_sacct() {
  on01 "sacct -n -X -P -a -A physics -S now-2hours -E now -o ElapsedRaw,AllocTRES" |
    awk -F'|' 'match($2, /gres\/gpu=[0-9]+/) { s += $1 * substr($2, RSTART + 9, RLENGTH - 9) } END { print s + 0 }'
}
gpu_sizes_report() { on01 "TZ=$(sreport_tz) sreport $* -P -t seconds job SizesByAccount FlatView -T gres/gpu start=now-2hours end=now"; }
physics_sreport() {
  gpu_sizes_report -n |
    awk -F'|' '$2 == "physics" { for (i = 3; i <= NF; i++) if ($i !~ /%/) s += $i } END { print s + 0 }'
}
for _ in $(seq 20); do [ "$(physics_sreport)" -ge 64 ] && [ "$(physics_sreport)" = "$(physics_sacct)" ] && break; sleep 1; done
check "sreport shows physics's GPU time (job SizesByAccount FlatView -T gres/gpu: $(physics_sreport) GPU-seconds, its jobs' sacct lines $(physics_sacct), at least the 64 of the last)" \
  sh -c "[ '$(physics_sreport)' -ge 64 ] && [ '$(physics_sreport)' = '$(physics_sacct)' ]" || {
  echo "# sreport job SizesByAccount FlatView (-P, TZ=$(sreport_tz)):"; gpu_sizes_report 2>&1 | sed 's/^/#   /'
  echo "# sacct (physics, -X):"; on01 "sacct -X -P -a -A physics -S now-2hours -E now -o JobID,Account,User,State,Start,End,ElapsedRaw,AllocTRES" 2>&1 | sed 's/^/#   /'
  echo "# associations:"; on01 "sacctmgr -n -P show assoc format=Cluster,Account,User,ID,ParentName" 2>&1 | sed 's/^/#   /'
}
# slurmctld's view of the QoS: GrpTRESMins=...,gres/gpu=1(USED MINUTES),...
spent() { on01 "scontrol show assoc_mgr flags=qos qos=budget" | grep -oE 'GrpTRESMins=.*' | grep -oE 'gres/gpu=1\([0-9]+\)'; }
for _ in $(seq 90); do [ "$(spent)" != "gres/gpu=1(0)" ] && [ -n "$(spent)" ] && break; sleep 1; done
held=$(on01 "cd /tmp && runuser -u alice -- sbatch --parsable --qos=budget --gres=gpu:1 --wrap true")
reason() { on01 "squeue -h -j '$held' -o %r"; }
for _ in $(seq 20); do [ "$(reason)" = QOSGrpGRESMinutes ] && break; sleep 0.5; done
check "QoS budget (GrpTRESMins=gres/gpu=1) holds her next GPU job once spent ($(spent); reason $(reason))" \
  test "$(reason)" = QOSGrpGRESMinutes
on01 "scancel '$held'"
echo "# GPU budget checks: $(( $(now_ms) - start )) ms"
