# Task migrations per second, in total and by distance, for arbor bench.
# Usage: awk -v w=WALL_SECONDS -f migrations.awk CPU_CLASSES TRACE
#   CPU_CLASSES: "cpu core-key llc-key node" per line (bench/guest.sh builds
#                it from the guest's sysfs);
#   TRACE: `perf script -F trace` of sched:sched_migrate_task
#          ("comm=... pid=... prio=... orig_cpu=N dest_cpu=M").
# Prints "metric value" lines: migr_per_s, migr_smt_per_s (within a core),
# migr_llc_per_s (within an LLC), migr_xllc_per_s (across LLCs of a node),
# migr_xnode_per_s (across nodes).
NR == FNR { core[$1] = $2; llc[$1] = $3; node[$1] = $4; next }
{
	o = d = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^orig_cpu=/) o = substr($i, 10)
		if ($i ~ /^dest_cpu=/) d = substr($i, 10)
	}
	if (o == "" || d == "") next
	n++
	if (!(o in core) || !(d in core)) next	# counted, not classed
	if (core[o] == core[d]) smt++
	else if (llc[o] == llc[d]) l++
	else if (node[o] == node[d]) x++
	else z++
}
END {
	if (w <= 0) exit
	printf "migr_per_s %.1f\nmigr_smt_per_s %.1f\nmigr_llc_per_s %.1f\nmigr_xllc_per_s %.1f\nmigr_xnode_per_s %.1f\n",
		n / w, smt / w, l / w, x / w, z / w
}
