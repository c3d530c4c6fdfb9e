#!/usr/bin/env bash
# Writes the three hand-made asymmetric machines of this finding as snapshot
# directories (sysfs's layout, as `arbor sim snapshot` writes it):
#   machines.sh DIR   ->  DIR/laptop, DIR/phone, DIR/arm72
# Every CPU is its own core (no SMT), one node. A group of CPUs is
# COUNT:CAPACITY:LLC:LLC_LEVEL:LLC_SIZE; CPUs are numbered in the order of
# the groups, and the groups with the same LLC id share that cache. Each CPU
# also has a 64 KB L1d, and below an L3 LLC its own 1 MB L2.
set -euo pipefail
out=${1:?usage: machines.sh DIR}

put() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" > "$1"; }

# cache DIR LEVEL TYPE SIZE SHARED
cache() {
	put $1/level $2; put $1/type $3; put $1/size $4
	put $1/coherency_line_size 64; put $1/shared_cpu_list $5
}

# machine NAME ARCH "STATE/EXIT_US/RESIDENCY_US ..." GROUP...
machine() {
	local name=$1 arch=$2 idle=$3; shift 3
	local root=$out/$name cpu=0 g n c l lv sz i j k s st sn se sr
	local cpus=$root/devices/system/cpu
	local -a cap llc level size
	rm -rf "$root"
	for g in "$@"; do
		IFS=: read -r n c l lv sz <<< "$g"
		for ((k = 0; k < n; k++)); do
			cap[cpu]=$c; llc[cpu]=$l; level[cpu]=$lv; size[cpu]=$sz; cpu=$((cpu + 1))
		done
	done
	put $cpus/online "0-$((cpu - 1))"; put $cpus/possible "0-$((cpu - 1))"
	put $root/devices/system/node/node0/cpulist "0-$((cpu - 1))"
	put $root/devices/system/node/node0/distance 10
	for ((i = 0; i < cpu; i++)); do
		local first=-1 last=-1 d=$cpus/cpu$i
		for ((j = 0; j < cpu; j++)); do
			[ "${llc[j]}" = "${llc[i]}" ] || continue
			[ $first -ge 0 ] || first=$j
			last=$j
		done
		put $d/cpu_capacity ${cap[i]}
		put $d/topology/thread_siblings_list $i; put $d/topology/core_cpus_list $i
		cache $d/cache/index0 1 Data 64K $i
		cache $d/cache/index1 1 Instruction 64K $i
		if [ ${level[i]} = 3 ]; then cache $d/cache/index2 2 Unified 1024K $i; fi
		cache $d/cache/index3 ${level[i]} Unified ${size[i]} $first-$last
		s=0
		for st in $idle; do
			IFS=/ read -r sn se sr <<< "$st"
			put $d/cpuidle/state$s/name $sn; put $d/cpuidle/state$s/latency $se
			put $d/cpuidle/state$s/residency $sr
			s=$((s + 1))
		done
	done
	printf '%s\n' "A hand-made machine for arbor sim --topology-from, written by machines.sh." "" \
		"hostname: $name" "arch: $arch" "cpus online: 0-$((cpu - 1))" > $root/README
}

# (a) hybrid laptop: 4 performance cores (capacity 1024) sharing a 12 MB L3;
# 4 efficiency cores (capacity 520) sharing a 2 MB L2, their LLC. Idle
# states of intel_idle's Alder Lake table (adl_cstates).
machine laptop x86_64 "POLL/0/0 C1/1/1 C1E/2/4 C6/220/600 C8/280/800 C10/680/2000" \
	4:1024:0:3:12288K 4:520:1:2:2048K

# (b) phone: 4 little (160), 2 middle (480), 2 big (1024) cores, one shared
# 8 MB L3 (DynamIQ); WFI, core off, cluster off (typical DT idle-states).
machine phone aarch64 "WFI/1/0 cpu-off/250/1000 cluster-off/1500/3000" \
	4:160:0:3:8192K 2:480:0:3:8192K 2:1024:0:3:8192K

# (c) ARM server: 72 cores of one capacity, one 114 MB L3 (a Grace-like
# part); WFI and a core power-down state (ACPI LPI).
machine arm72 aarch64 "WFI/1/0 cpu-off/150/600" 72:1024:0:3:116736K
