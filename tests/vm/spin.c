/*
 * spin: a process of N CPU-bound threads for S seconds, for the CACHE_LB VM
 * test (sysbench starts its threads too late under TCG to be sampled).
 * Usage: spin THREADS SECONDS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double secs;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
	volatile unsigned long x = 0;
	double end = now() + secs;

	(void)arg;
	while (now() < end)
		for (int i = 0; i < 100000; i++)
			x++;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	pthread_t t[64];

	secs = argc > 2 ? atof(argv[2]) : 0;
	if (n < 1 || n > 64 || secs <= 0) {
		fprintf(stderr, "usage: spin THREADS(1-64) SECONDS\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, spin, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
