/*
 * validate_marks.c - the phase marks of a native run, stamped as they come.
 *
 * A native run is not traced, so its phase marks cannot be seen as the
 * recording's and the replay's are (a lookup of /dev/null/iotape-phase/NAME).
 * The workload also writes the line "NAME" to $IOTAPE_PHASE_LOG, a FIFO
 * that a thread here reads, taking the time as each line arrives: a
 * shell's 'echo' is built in, so a mark costs the run an open, a write and
 * a close and no process.  (A mark used to carry its time, "NAME $(date
 * +%s.%N)": a process the recording and the replay do not have, 6-7 ms a
 * mark on the reference machine, added to the native run and its phase
 * before, and its time read after date's own start.  Such lines are still
 * taken, with their time.)
 *
 * The thread runs at real-time priority where it may (validate runs as
 * root): woken by the write, it takes the time before the workload's
 * processes go on, on a machine whose CPUs they keep busy.  Then it reads
 * the read and write counts of the command's live processes (/proc/PID/io:
 * each one's own and those of the children it has reaped; the tree from
 * /proc/PID/task/TID/children): what the command read and wrote before
 * the mark.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "iotape.h"
#include "validate_run.h"

/* The line that ends the thread: validate's own, no workload's. */
#define STOP_LINE "\001iotape-validate-stop"

struct val_marks {
	char path[4096];
	int fd;				/* the FIFO, read and write: no EOF */
	pthread_t th;
	struct val_times *t;		/* the marks go there, their times
					 * CLOCK_REALTIME until the close */
};

/* One line (NUL-terminated, no newline) that came at @now.  @return : 1
 * if it is the stop line. */
static int take_line(struct val_marks *m, char *line, double now)
{
	char *sp, *end;
	double t = now, v;
	size_t len;

	if (strcmp(line, STOP_LINE) == 0)
		return 1;
	len = strlen(line);
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
		line[--len] = 0;
	if (!len || m->t->n >= VAL_MAX_PHASES)
		return 0;
	/* "NAME SECONDS" (a time since the epoch): the older form */
	sp = strrchr(line, ' ');
	if (sp && sp != line) {
		v = strtod(sp + 1, &end);
		if (end != sp + 1 && *end == 0 && v > 1e9) {
			*sp = 0;
			t = v;
		}
	}
	snprintf(m->t->name[m->t->n], sizeof(m->t->name[m->t->n]), "%.63s", line);
	/* what the command read and wrote before it: its processes' counts,
	 * each with those of the children it reaped */
	if (!val_running() || val_tree_io(val_running(), m->t->mark_io[m->t->n]) < 0)
		m->t->mark_io[m->t->n][0] = NAN;
	m->t->start[m->t->n++] = t;
	return 0;
}

static void *reader(void *arg)
{
	struct val_marks *m = arg;
	char buf[4096], *nl, *s;
	size_t have = 0;
	ssize_t got;
	double now;

	for (;;) {
		got = read(m->fd, buf + have, sizeof(buf) - 1 - have);
		now = val_real_now();
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return NULL;
		have += (size_t)got;
		buf[have] = 0;
		s = buf;
		while ((nl = strchr(s, '\n'))) {
			*nl = 0;
			if (take_line(m, s, now))
				return NULL;
			s = nl + 1;
		}
		have = (size_t)(buf + have - s);
		memmove(buf, s, have);
		if (have == sizeof(buf) - 1)
			have = 0;	/* a line longer than the buffer: dropped */
	}
}

int val_marks_open(struct val_marks **out, const char *path, struct val_times *t)
{
	struct val_marks *m = calloc(1, sizeof(*m));
	struct sched_param sp = { .sched_priority = 1 };
	pthread_attr_t a;
	int rc;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	snprintf(m->path, sizeof(m->path), "%s", path);
	m->t = t;
	t->n = 0;
	unlink(path);
	if (mkfifo(path, 0666) < 0) {
		rc = -errno;
		goto fail;
	}
	/* other users may run the workload's marks (umask aside) */
	(void)chmod(path, 0666);
	/* read and write: open does not wait for a writer, and the read
	 * sees no end when a mark's writer closes */
	m->fd = open(path, O_RDWR | O_CLOEXEC);
	if (m->fd < 0) {
		rc = -errno;
		unlink(path);
		goto fail;
	}
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	rc = pthread_create(&m->th, &a, reader, m);
	pthread_attr_destroy(&a);
	if (rc == EPERM)	/* no real-time priority here: an ordinary thread */
		rc = pthread_create(&m->th, NULL, reader, m);
	if (rc) {
		close(m->fd);
		unlink(path);
		rc = -rc;
		goto fail;
	}
	*out = m;
	return 0;
fail:
	free(m);
	return rc;
}

void val_marks_close(struct val_marks *m, double t0)
{
	const char *stop = STOP_LINE "\n";
	struct val_times *t;
	FILE *f;
	int i;

	if (!m)
		return;
	if (write(m->fd, stop, strlen(stop)) < 0)
		pthread_cancel(m->th);
	pthread_join(m->th, NULL);
	close(m->fd);
	unlink(m->path);
	t = m->t;
	/* left as the older log was, for --keep: "NAME SECONDS" lines */
	if ((f = fopen(m->path, "w"))) {
		for (i = 0; i < t->n; i++)
			fprintf(f, "%s %.9f\n", t->name[i], t->start[i]);
		if (fclose(f) != 0)
			iot_err("validate", "cannot write %s: %s", m->path, strerror(errno));
	}
	for (i = 0; i < t->n; i++)
		t->start[i] -= t0;
	free(m);
}
