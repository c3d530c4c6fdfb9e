/* Timed waits with and without a crossbeam-style backoff (127 pause + 5
 * sched_yield before each 100 ms futex wait): bench/daemon-cpu.sh.
 * Usage: backoff MODE (0: plain timed waits, 1: with the backoff). */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
int main(int argc,char**argv){
	int mode=atoi(argv[1]); int x=0; long n=0, y=0; double s=now();
	struct timespec ts={0,100000000};
	while(now()-s<4){
		if(mode==1){ for(int i=0;i<127;i++) __builtin_ia32_pause(); for(int i=0;i<5;i++){sched_yield();y++;} }
		if(mode==2){ sched_yield(); y++; continue; }
		syscall(SYS_futex,&x,FUTEX_WAIT_PRIVATE,0,&ts,0,0); n++;
	}
	struct rusage r; getrusage(RUSAGE_SELF,&r);
	printf("mode %d: %ld timed waits, %ld yields, cpu %.3f s in 4 s\n",mode,n,y,r.ru_utime.tv_sec+r.ru_utime.tv_usec/1e6+r.ru_stime.tv_sec+r.ru_stime.tv_usec/1e6);
}
