/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h, by concern: multi-word bitmaps (the kernel's cpumask).
 * Included by policy.h only, after the parts before it (their rules may
 * be used here), with its ARBOR_POLICY and POLICY_FOR macros.
 */
#ifndef __ARBOR_POLICY_H
#error "include policy.h, not its parts"
#endif

/* ------------------------------------------------------------------ */
/* Multi-word bitmaps (the kernel's cpumask, scx's scx_bitmap)         */
/* ------------------------------------------------------------------ */

/*
 * A bitmap is an array of `words` u64s, bit i in word i / 64. `words` is
 * a power of two known at compile time (intf.h: CPU_MASK_WORDS,
 * LLC_MASK_WORDS, LLCS_MASK_WORDS), so the word index is masked to the
 * array and the verifier sees every access in bounds. A bit past the end
 * reads as clear and is never written, like cpumask_test_cpu() /
 * __cpumask_set_cpu() on ids >= nr_cpumask_bits.
 */
#define ARBOR_MASK_WORD(i, words)	(((u32)(i) >> 6) & ((u32)(words) - 1))
#define ARBOR_MASK_BIT(i)		(1ULL << ((u32)(i) & 63))

ARBOR_POLICY bool arbor_mask_test(const u64 *m, u32 words, u32 i)
{
	if (i >= words * 64)
		return false;
	return m[ARBOR_MASK_WORD(i, words)] & ARBOR_MASK_BIT(i);
}

ARBOR_POLICY void arbor_mask_set(u64 *m, u32 words, u32 i)
{
	if (i < words * 64)
		m[ARBOR_MASK_WORD(i, words)] |= ARBOR_MASK_BIT(i);
}

ARBOR_POLICY void arbor_mask_clear(u64 *m, u32 words, u32 i)
{
	if (i < words * 64)
		m[ARBOR_MASK_WORD(i, words)] &= ~ARBOR_MASK_BIT(i);
}

ARBOR_POLICY void arbor_mask_zero(u64 *m, u32 words)
{
	s32 k;

	POLICY_FOR(k, 0, CPU_MASK_WORDS) {
		if ((u32)k >= words)
			break;
		m[k & (CPU_MASK_WORDS - 1)] = 0;
	}
}

/* Number of set bits (cpumask_weight). */
ARBOR_POLICY u32 arbor_mask_weight(const u64 *m, u32 words)
{
	u32 n = 0;
	s32 k;

	POLICY_FOR(k, 0, CPU_MASK_WORDS) {
		u64 w;

		if ((u32)k >= words)
			break;
		/* Kernighan's loop: the BPF ISA has no popcount */
		for (w = m[k & (CPU_MASK_WORDS - 1)]; w && n < words * 64; w &= w - 1)
			n++;
	}
	return n;
}
