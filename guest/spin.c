/*
 * spin: a process of N CPU-bound threads for S seconds, for the CACHE_LB VM
 * test (sysbench starts its threads too late under TCG to be sampled).
 * Usage: spin THREADS SECONDS
 *        spin churn PROCS SECONDS
 * The churn form forks PROCS short processes one after another, each of two
 * threads spinning SECONDS (fork without exec: an exec costs up to seconds
 * under TCG), for the process-table test (tests/vm/proctable.sh).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

static int churn(int procs)
{
	for (int i = 0; i < procs; i++) {
		pid_t pid = fork();
		int st;

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			pthread_t t;

			if (pthread_create(&t, NULL, spin, NULL))
				_exit(1);
			spin(NULL);
			pthread_join(t, NULL);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "churn: child %d failed\n", i);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	pthread_t t[64];

	if (argc == 4 && !strcmp(argv[1], "churn")) {
		n = atoi(argv[2]);
		secs = atof(argv[3]);
		if (n < 1 || secs <= 0) {
			fprintf(stderr, "usage: spin churn PROCS(>=1) SECONDS\n");
			return 2;
		}
		return churn(n);
	}

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
