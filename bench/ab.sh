#!/usr/bin/env bash
# A/B/... measurement in one guest boot: each workload under each scheduler,
# runs interleaved (A B C A B C ...) so drift cancels; prints mean ± stdev and
# % change against the first scheduler, plus scx_arbor counters of interest.
#
#   SCHEDS='eevdf;stock=--profile stock;steal=--profile stock -f STEAL' \
#   arbor vm -t 2s2c2t -- bench/ab.sh RUNS 'name|command|kind' ...
#
# kind: time (hackbench "Time:", s), pipe / messaging (perf bench "Total time", s),
# eps (sysbench "events per second", higher is better).
# COUNTERS='steal,newidle_pulls' adds the mean of those counters per scheduler.
set -u
. "$(dirname "$0")/../tests/vm/lib.sh"
RUNS=${1:?usage: ab.sh RUNS WORKLOAD...}
shift
IFS=';' read -r -a SCH <<<"${SCHEDS:-eevdf;arbor=}"
COUNTERS=${COUNTERS:-idle_while_queued_ns}
OUT=$(mktemp -d /tmp/arbor-ab.XXXXXX)

metric() {
	case $1 in
	time) awk '/^Time:/ { print $2 }' "$2" ;;
	pipe | messaging) awk '/Total time:/ { print $3 }' "$2" ;;
	eps) awk '/events per second:/ { s += $4; n++ } END { if (n) print s }' "$2" ;;
	*) echo "ab.sh: unknown kind '$1'" >&2; exit 2 ;;
	esac
}

echo "== ab: $(nproc) CPUs, $(uname -r), $RUNS interleaved runs"
for s in "${SCH[@]}"; do echo "   scheduler: $s"; done
for w in "$@"; do
	IFS='|' read -r name cmd kind <<<"$w"
	for r in $(seq 1 "$RUNS"); do
		line="$name run $r:"
		for s in "${SCH[@]}"; do
			label=${s%%=*}
			if [ "$label" = eevdf ]; then
				bash -c "$cmd" >"$OUT/raw" 2>&1
			else
				flags=${s#*=}
				# shellcheck disable=SC2086
				start_sched $flags --stats-json "$OUT/j" || { echo "ab.sh: $label failed to load"; cat "$SLOG"; exit 1; }
				bash -c "$cmd" >"$OUT/raw" 2>&1
				stop_sched
				[ "$SRC" -eq 0 ] || echo "WARNING: $label exited $SRC (ejected?) in $name run $r"
				for c in ${COUNTERS//,/ }; do
					echo "C $name $label $c $(json_get "$OUT/j" $c) $(json_get "$OUT/j" busy_ns) $(json_get "$OUT/j" idle_ns)" >>"$OUT/results"
				done
			fi
			v=$(metric "$kind" "$OUT/raw")
			[ -n "$v" ] || { echo "ab.sh: no result from '$cmd' under $label:"; tail -5 "$OUT/raw"; v=nan; }
			echo "R $name $label $v" >>"$OUT/results"
			line="$line $label $v"
		done
		echo "$line"
	done
done
echo
first=${SCH[0]%%=*}
for w in "$@"; do
	IFS='|' read -r name cmd kind <<<"$w"
	better=$([ "$kind" = eps ] && echo higher || echo lower)
	echo "### $name: \`$cmd\` ($kind, $better is better)"
	echo
	echo "| scheduler | mean | stdev | runs | change vs $first | counters (mean per run) |"
	echo "|---|---|---|---|---|---|"
	for s in "${SCH[@]}"; do
		label=${s%%=*}
		awk -v n="$name" -v l="$label" -v f="$first" '
			$1 == "R" && $2 == n && $4 != "nan" && $3 == l { x[++k] = $4 }
			$1 == "R" && $2 == n && $4 != "nan" && $3 == f { y[++m] = $4 }
			$1 == "C" && $2 == n && $3 == l { c[$4] += $5; cb[$4] += $6 + $7; cn[$4]++ }
			END {
				s = 0; for (i = 1; i <= k; i++) s += x[i]; mu = k ? s / k : 0
				v = 0; for (i = 1; i <= k; i++) v += (x[i] - mu) ^ 2; sd = k > 1 ? sqrt(v / (k - 1)) : 0
				s = 0; for (i = 1; i <= m; i++) s += y[i]; mf = m ? s / m : 0
				ch = (l == f || mf == 0) ? "-" : sprintf("%+.1f%%", (mu - mf) / mf * 100)
				cs = ""
				for (name in c) {
					if (name == "idle_while_queued_ns")
						cs = cs sprintf("idle-while-queued %.2f%% of CPU time; ", cb[name] ? 100 * c[name] / cb[name] : 0)
					else
						cs = cs sprintf("%s %.0f; ", name, c[name] / cn[name])
				}
				printf "| %s | %.3f | %.3f | %d | %s | %s |\n", l, mu, sd, k, ch, cs
			}' "$OUT/results"
	done
	echo
done
