/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h, by concern: CACHE_LB (seed 002, merged in 7.2 as CONFIG_SCHED_CACHE).
 * Included by policy.h only, after the parts before it (their rules may
 * be used here), with its ARBOR_POLICY and POLICY_FOR macros.
 */
#ifndef __ARBOR_POLICY_H
#error "include policy.h, not its parts"
#endif

/* ------------------------------------------------------------------ */
/* CACHE_LB (seed 002, merged in 7.2 as CONFIG_SCHED_CACHE)            */
/* ------------------------------------------------------------------ */

/*
 * The hottest LLC of a process: the one where its threads' occupancy sums
 * highest. The preference moves only when the new LLC scores more than
 * twice the current one, so two near-equal LLCs do not make the process
 * bounce (and drag its working set) back and forth.
 *
 * Room rule (ours, not in the seed; feature CACHE_ROOM, which the caller
 * switches off by passing an empty over_mask): when the hottest LLC is over
 * the aggregation threshold (bit i of over_mask, a bitmap of LLCS_MASK_WORDS
 * words) and the process runs about as
 * much (at least half as much) in an LLC that is not, prefer that one.
 * Without it, two processes split evenly across two LLCs both pick the
 * first LLC on the tie; allow_into then refuses the second process's
 * threads (the LLC is full of the first), and it stays split for good. The
 * seed leaves that to the kernel's active balancing, which we do not have.
 * The "half as much" bound keeps a process that has just aggregated from
 * chasing the decaying run time it left behind.
 */
ARBOR_POLICY s32 arbor_cache_pick_pref(u32 n, const u64 *occ, s32 cur, const u64 *over_mask)
{
	/* indices and their values kept apart: the verifier wants bounded reads */
	s32 best = -1, room = -1, i;
	u64 best_occ = 0, room_occ = 0, cur_occ;

	POLICY_FOR(i, 0, MAX_LLCS) {
		u64 o;

		if ((u32)i >= n)
			break;
		o = occ[i & (MAX_LLCS - 1)];
		if (!o)
			continue;
		if (best < 0 || o > best_occ) {
			best = i;
			best_occ = o;
		}
		if (!arbor_mask_test(over_mask, LLCS_MASK_WORDS, i) && (room < 0 || o > room_occ)) {
			room = i;
			room_occ = o;
		}
	}
	if (best < 0)
		return cur;
	if (cur < 0 || (u32)cur >= n || cur >= MAX_LLCS) {
		if (arbor_mask_test(over_mask, LLCS_MASK_WORDS, best) && room >= 0 &&
		    2 * room_occ >= best_occ)
			return room;
		return best;
	}
	cur_occ = occ[cur & (MAX_LLCS - 1)];
	/* the current LLC is full and an LLC with room is as hot: move */
	if (arbor_mask_test(over_mask, LLCS_MASK_WORDS, cur) && room >= 0 && room != cur &&
	    2 * room_occ >= cur_occ)
		return room;
	if (best != cur && best_occ > 2 * cur_occ)
		return best;
	return cur;
}

/*
 * Aggregation must not pack a process beyond what its LLC can hold
 * (invalid_llc_nr() of the merged series, fair.c): single-threaded
 * processes gain nothing, and the process's average number of running
 * threads x SMT width (each thread wants a whole core) must fit, with the
 * kernel's fits_capacity() 20% margin (x * 1280 < max * 1024), in the LLC's
 * CPUs times the tolerance factor. `tolerance` is llc_aggr_tolerance, a
 * multiplier as get_sched_cache_scale(1) makes it: 1 (the default) = the
 * LLC as it is, N = N times the LLC, 0 = no process is eligible
 * (aggregation off), >= 100 = no limit. Running threads, not threads: a
 * process's sleeping threads (a main thread in join(), a pool's idle
 * workers) take no CPU. The SMT scaling is the merged fix for the seed's
 * Power11 SMT8 regression.
 */
ARBOR_POLICY bool arbor_cache_eligible(u32 nr_threads, u32 nr_running, u32 smt, u32 llc_size,
				       u32 tolerance)
{
	if (nr_threads < 2 || tolerance == 0)
		return false;
	if (tolerance >= 100)
		return true;
	return (u64)nr_running * smt * 1280 < (u64)llc_size * tolerance * 1024;
}

/*
 * A process's average number of running threads, from its decayed run time
 * (halved every epoch). With N threads always running, the full epochs sum
 * to N * epoch and the current one adds N * (now % epoch): divide by that
 * window, rounding to the nearest.
 */
ARBOR_POLICY u32 arbor_cache_nr_running(u64 total_rt, u64 now, u64 epoch)
{
	u64 win = epoch + (epoch ? now % epoch : 0);

	return win ? (total_rt + win / 2) / win : 0;
}

/* An LLC is over the aggregation threshold when util*100 >= cap*aggr_pct. */
ARBOR_POLICY bool arbor_cache_over(u64 util, u64 cap, u32 aggr_pct)
{
	return util * 100 >= cap * aggr_pct;
}

/* util_a/cap_a > util_b/cap_b * (100 + imb_pct)/100, cross-multiplied. */
ARBOR_POLICY bool arbor_cache_busier(u64 ua, u64 ca, u64 ub, u64 cb, u32 imb_pct)
{
	return ua * cb * 100 > ub * ca * (100 + imb_pct);
}

/*
 * can_migrate_llc() of the merged series (fair.c), for a task of
 * utilisation `task_util` moving from src to dst. When both LLCs are over
 * the threshold before the move, ordinary balancing decides (mig_unrestricted:
 * allowed). Otherwise the move is judged on the utilisations it would
 * leave: src without the task, dst with it (the kernel subtracts and adds
 * tsk_util; without that, a move that itself tips an LLC over the threshold
 * would pass). One difference, kept from before: "busier" compares
 * utilisation per unit of capacity (arbor_cache_busier), where the kernel's
 * util_greater() compares raw sums; they agree for LLCs of one size.
 *
 * INTO its preferred LLC (dst): refused when dst would be over the
 * threshold and more than imb_pct busier than src.
 */
ARBOR_POLICY bool arbor_cache_allow_into(u64 dst_util, u64 dst_cap, u64 src_util, u64 src_cap,
					 u64 task_util, u32 aggr_pct, u32 imb_pct)
{
	if (arbor_cache_over(dst_util, dst_cap, aggr_pct) &&
	    arbor_cache_over(src_util, src_cap, aggr_pct))
		return true;
	src_util = src_util > task_util ? src_util - task_util : 0;
	dst_util += task_util;
	return !(arbor_cache_over(dst_util, dst_cap, aggr_pct) &&
		 arbor_cache_busier(dst_util, dst_cap, src_util, src_cap, imb_pct));
}

/*
 * OUT of its preferred LLC (src = pref) to dst: refused unless the
 * preferred LLC, without the task, is still over the threshold and more
 * than imb_pct busier than dst with it (hysteresis: aggregation is sticky,
 * and a move that would make dst as busy as pref would bounce back).
 */
ARBOR_POLICY bool arbor_cache_allow_out(u64 pref_util, u64 pref_cap, u64 dst_util, u64 dst_cap,
					u64 task_util, u32 aggr_pct, u32 imb_pct)
{
	if (arbor_cache_over(pref_util, pref_cap, aggr_pct) &&
	    arbor_cache_over(dst_util, dst_cap, aggr_pct))
		return true;
	pref_util = pref_util > task_util ? pref_util - task_util : 0;
	dst_util += task_util;
	return arbor_cache_over(pref_util, pref_cap, aggr_pct) &&
	       arbor_cache_busier(pref_util, pref_cap, dst_util, dst_cap, imb_pct);
}

/*
 * Seed 002's cache-aware balancing decision for one task (the seed's v3:
 * the migrate_llc_task migration type and the LLC hint can_migrate_task()
 * consults; merged for 7.2 as can_migrate_llc_task() over can_migrate_llc(),
 * with llc_balance() tagging a group group_llc_balance and
 * migrate_degrades_llc() in can_migrate_task()). For a task whose process
 * prefers LLC `pref` (-1: none) moving from LLC src_llc to dst_llc, with
 * the LLCs' utilisations and capacities before the move:
 *  - same LLC, or no preference: no opinion (LLC_LB_ANY);
 *  - dst is the preferred LLC: when both LLCs are over the aggregation
 *    threshold the kernel answers mig_unrestricted and ordinary balancing
 *    decides (LLC_LB_ANY: no LLC pull, as llc_balance() tags a group only
 *    on mig_allow); otherwise allowed into it by arbor_cache_allow_into ->
 *    LLC_LB_PULL (the balancer may pull it even when the groups are
 *    balanced: calculate_imbalance() sets migrate_llc_task with an
 *    imbalance of one task), refused -> LLC_LB_FORBID;
 *  - src is the preferred LLC: leaving it only when arbor_cache_allow_out
 *    says the preferred LLC is over the threshold and busier by imb_pct
 *    (or both are over): LLC_LB_ANY, else LLC_LB_FORBID (mig_forbid: the
 *    balancer does not pull it out);
 *  - neither: no opinion.
 */
ARBOR_POLICY u32 arbor_cache_lb_task(s32 pref, u32 src_llc, u32 dst_llc, u64 src_util,
				     u64 src_cap, u64 dst_util, u64 dst_cap, u64 task_util,
				     u32 aggr_pct, u32 imb_pct)
{
	if (pref < 0 || src_llc == dst_llc)
		return LLC_LB_ANY;
	if ((u32)pref == dst_llc) {
		if (arbor_cache_over(dst_util, dst_cap, aggr_pct) &&
		    arbor_cache_over(src_util, src_cap, aggr_pct))
			return LLC_LB_ANY;
		return arbor_cache_allow_into(dst_util, dst_cap, src_util, src_cap, task_util,
					      aggr_pct, imb_pct) ? LLC_LB_PULL : LLC_LB_FORBID;
	}
	if ((u32)pref == src_llc)
		return arbor_cache_allow_out(src_util, src_cap, dst_util, dst_cap, task_util,
					     aggr_pct, imb_pct) ? LLC_LB_ANY : LLC_LB_FORBID;
	return LLC_LB_ANY;
}
