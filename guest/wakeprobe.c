/*
 * wakeprobe: a schbench-style wake-up latency probe (written for scx_arbor;
 * the design follows schbench's, not its code).
 *
 * M message threads each own W worker threads. A request: the message
 * thread stamps the time and wakes its W workers (futex); each worker
 * measures how long it took to get a CPU after the wake-up (the wake-up
 * latency), does a little work on a buffer it shares with its message
 * thread (so placement near the waker pays off in cache), and signals
 * completion; when all W are done the message thread starts the next
 * request. What placement decides shows up directly: where the woken
 * worker runs and how soon.
 *
 * Usage: wakeprobe [-m MSG_THREADS] [-w WORKERS] [-t SECONDS] [-k WORK_KB]
 * Prints one JSON line: requests/s and wake-up latency p50/p90/p99/p99.9 (us).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* latency histogram: 1 us buckets up to 10 ms, then 100 us up to 1 s */
#define FINE 10000
#define COARSE 10000
#define NBUCKETS (FINE + COARSE + 1)

struct worker {
	atomic_int go;		/* futex word: request number to serve */
	uint64_t lat_hist[NBUCKETS];
	pthread_t tid;
	struct msg *m;
} __attribute__((aligned(64)));

struct msg {
	atomic_int done;	/* futex word: workers finished this request */
	atomic_int req;
	uint64_t stamp_ns;	/* when the request's wake-ups were issued */
	uint64_t requests;
	char *buf;		/* shared with the workers */
	size_t buf_len;
	struct worker *w;
	pthread_t tid;
} __attribute__((aligned(64)));

static int nr_workers = 4, nr_msg = 2, secs = 5, work_kb = 64;
static atomic_int stop;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* timed, so that a wait that races with `stop` cannot hang the exit */
static void fwait(atomic_int *a, int val)
{
	struct timespec to = { 0, 50 * 1000 * 1000 };

	syscall(SYS_futex, a, FUTEX_WAIT_PRIVATE, val, &to, NULL, 0);
}

static void fwake(atomic_int *a, int n)
{
	syscall(SYS_futex, a, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static void record(uint64_t *h, uint64_t ns)
{
	uint64_t us = ns / 1000;

	if (us < FINE)
		h[us]++;
	else if (us < FINE + COARSE * 100ull)
		h[FINE + (us - FINE) / 100]++;
	else
		h[NBUCKETS - 1]++;
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct msg *m = w->m;
	int seen = 0;

	for (;;) {
		int r;

		while ((r = atomic_load(&w->go)) == seen && !atomic_load(&stop))
			fwait(&w->go, seen);
		if (atomic_load(&stop))
			break;
		seen = r;
		record(w->lat_hist, now_ns() - m->stamp_ns);
		/* the work: read and dirty the buffer the message thread filled */
		for (size_t i = 0; i < m->buf_len; i += 64)
			m->buf[i]++;
		if (atomic_fetch_add(&m->done, 1) + 1 == nr_workers)
			fwake(&m->done, 1);
	}
	return NULL;
}

static void *msg_fn(void *arg)
{
	struct msg *m = arg;

	while (!atomic_load(&stop)) {
		int req = atomic_fetch_add(&m->req, 1) + 1;

		memset(m->buf, req, m->buf_len);
		atomic_store(&m->done, 0);
		m->stamp_ns = now_ns();
		for (int i = 0; i < nr_workers; i++) {
			atomic_store(&m->w[i].go, req);
			fwake(&m->w[i].go, 1);
		}
		for (;;) {
			int d = atomic_load(&m->done);

			if (d == nr_workers || atomic_load(&stop))
				break;
			fwait(&m->done, d);
		}
		m->requests++;
	}
	for (int i = 0; i < nr_workers; i++) {
		atomic_fetch_add(&m->w[i].go, 1);
		fwake(&m->w[i].go, 1);
	}
	return NULL;
}

static double pct(const uint64_t *h, uint64_t total, double p)
{
	uint64_t want = (uint64_t)(total * p / 100.0), sum = 0;

	for (int i = 0; i < NBUCKETS; i++) {
		sum += h[i];
		if (sum > want)
			return i < FINE ? i : FINE + (double)(i - FINE) * 100;
	}
	return NBUCKETS;
}

static int parse(const char *opt, const char *v, int lo, int hi)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || *end || x < lo || x > hi) {
		fprintf(stderr, "wakeprobe: %s wants an integer in %d..%d, got '%s'\n", opt, lo, hi, v);
		exit(2);
	}
	return (int)x;
}

int main(int argc, char **argv)
{
	static uint64_t hist[NBUCKETS];
	uint64_t total = 0, reqs = 0, t0;
	struct msg *msgs;
	int c;

	while ((c = getopt(argc, argv, "m:w:t:k:")) != -1) {
		switch (c) {
		case 'm': nr_msg = parse("-m", optarg, 1, 64); break;
		case 'w': nr_workers = parse("-w", optarg, 1, 256); break;
		case 't': secs = parse("-t", optarg, 1, 3600); break;
		case 'k': work_kb = parse("-k", optarg, 0, 65536); break;
		default:
			fprintf(stderr, "usage: wakeprobe [-m MSG_THREADS] [-w WORKERS] [-t SECONDS] [-k WORK_KB]\n");
			return 2;
		}
	}
	msgs = aligned_alloc(64, sizeof(*msgs) * nr_msg);
	if (!msgs) {
		perror("wakeprobe");
		return 1;
	}
	memset(msgs, 0, sizeof(*msgs) * nr_msg);
	for (int i = 0; i < nr_msg; i++) {
		struct msg *m = &msgs[i];

		m->buf_len = (size_t)work_kb * 1024;
		m->buf = calloc(1, m->buf_len + 1);
		m->w = aligned_alloc(64, sizeof(struct worker) * nr_workers);
		if (!m->buf || !m->w) {
			perror("wakeprobe");
			return 1;
		}
		memset(m->w, 0, sizeof(struct worker) * nr_workers);
		for (int j = 0; j < nr_workers; j++) {
			m->w[j].m = m;
			pthread_create(&m->w[j].tid, NULL, worker_fn, &m->w[j]);
		}
	}
	t0 = now_ns();
	for (int i = 0; i < nr_msg; i++)
		pthread_create(&msgs[i].tid, NULL, msg_fn, &msgs[i]);
	sleep(secs);
	atomic_store(&stop, 1);
	for (int i = 0; i < nr_msg; i++) {
		pthread_join(msgs[i].tid, NULL);
		for (int j = 0; j < nr_workers; j++) {
			pthread_join(msgs[i].w[j].tid, NULL);
			for (int b = 0; b < NBUCKETS; b++) {
				hist[b] += msgs[i].w[j].lat_hist[b];
				total += msgs[i].w[j].lat_hist[b];
			}
		}
		reqs += msgs[i].requests;
	}
	printf("{\"rps\": %.1f, \"p50_us\": %.0f, \"p90_us\": %.0f, \"p99_us\": %.0f, "
	       "\"p999_us\": %.0f, \"samples\": %llu}\n",
	       reqs / ((now_ns() - t0) / 1e9), pct(hist, total, 50), pct(hist, total, 90),
	       pct(hist, total, 99), pct(hist, total, 99.9), (unsigned long long)total);
	return 0;
}
