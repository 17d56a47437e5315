/*
 * stamps.c - IOTAPE_RECORD_STAMPS=FILE: the recorder's wall and CPU time
 * at points of its start and end, for measuring where a recording's fixed
 * cost goes (docs/FIGURES.md, "A bpf recording's fixed cost").
 *
 * Each point is kept in memory as it is passed (a clock read or two, no
 * write) and the whole list is appended to FILE at the recorder's end,
 * one line a point: "NAME WALL_NS CPU_NS", WALL_NS on CLOCK_MONOTONIC (the
 * clock the BPF programs stamp their records with, so the program's first
 * and last records can be placed on the same line), CPU_NS the recorder
 * process's CPU time so far (every thread), or - for a time taken from a
 * record.  Without the variable a point costs one test.  Points may be
 * passed in the recorder's threads (the BPF load's, its unload's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rec.h"

#define STAMPS_MAX 64

static struct {
	const char *name;
	uint64_t wall, cpu;
} stamps[STAMPS_MAX];
static int nstamps = -1;	/* -1: not asked yet */
static const char *stamps_file;

static uint64_t ns_of(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* a slot for the next point, or -1; the first call is the recorder's
 * first point, before any thread of its own */
static int slot(void)
{
	int i;

	if (nstamps < 0) {
		stamps_file = getenv("IOTAPE_RECORD_STAMPS");
		nstamps = 0;
	}
	if (!stamps_file || !*stamps_file)
		return -1;
	i = __atomic_fetch_add(&nstamps, 1, __ATOMIC_RELAXED);
	return i < STAMPS_MAX ? i : -1;
}

void rec_stamp(const char *name)
{
	int i = slot();

	if (i < 0)
		return;
	stamps[i].wall = ns_of(CLOCK_MONOTONIC);
	stamps[i].cpu = ns_of(CLOCK_PROCESS_CPUTIME_ID);
	stamps[i].name = name;
}

void rec_stamp_at(const char *name, uint64_t wall_ns)
{
	int i = slot();

	if (i < 0)
		return;
	stamps[i].wall = wall_ns;
	stamps[i].cpu = UINT64_MAX;
	stamps[i].name = name;
}

void rec_stamps_write(void)
{
	FILE *f;
	int i;

	if (nstamps <= 0 || !stamps_file || !(f = fopen(stamps_file, "ae")))
		return;
	for (i = 0; i < nstamps && i < STAMPS_MAX; i++) {
		if (!stamps[i].name)
			continue;
		if (stamps[i].cpu == UINT64_MAX)
			fprintf(f, "%s %llu -\n", stamps[i].name, (unsigned long long)stamps[i].wall);
		else
			fprintf(f, "%s %llu %llu\n", stamps[i].name, (unsigned long long)stamps[i].wall,
				(unsigned long long)stamps[i].cpu);
	}
	fclose(f);
	nstamps = 0;
}
