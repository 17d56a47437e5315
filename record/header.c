/*
 * header.c - the trace header: where and how the recording was made
 * (host, kernel, mounts, clocks, the recorder's measured stop cost).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "rec.h"

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static char *unescape(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	if (!out)
		return NULL;
	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] && s[3]) {
			*o++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = 0;
	return out;
}

static int read_mounts(struct iot_header *h)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	struct iot_mount *m = NULL;
	size_t n = 0, cap = 0;
	char *line = NULL;
	size_t lcap = 0;

	if (!f)
		return -errno;
	while (getline(&line, &lcap, f) > 0) {
		char root[4096], mp[4096], opts[1024], fstype[256], src[4096], sopts[2048];
		unsigned maj, min;
		char *sep;

		if (sscanf(line, "%*d %*d %u:%u %4095s %4095s %1023s", &maj, &min,
			   root, mp, opts) != 5)
			continue;
		sep = strstr(line, " - ");
		if (!sep || sscanf(sep + 3, "%255s %4095s %2047s", fstype, src, sopts) != 3)
			continue;
		if (n == cap) {
			struct iot_mount *nm;

			cap = cap ? cap * 2 : 32;
			nm = realloc(m, cap * sizeof(*m));
			if (!nm)
				break;
			m = nm;
		}
		memset(&m[n], 0, sizeof(m[n]));
		m[n].device = unescape(src);
		m[n].mountpoint = unescape(mp);
		m[n].fstype = strdup(fstype);
		m[n].root = unescape(root);
		{
			size_t l = strlen(opts) + strlen(sopts) + 2;
			char *o = malloc(l);

			if (o)
				snprintf(o, l, "%s,%s", opts, sopts);
			m[n].options = o;
		}
		m[n].dev_major = maj;
		m[n].dev_minor = min;
		n++;
	}
	free(line);
	fclose(f);
	h->mounts = m;
	h->n_mounts = n;
	return 0;
}

static int64_t ts_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void rec_header_clock(struct iot_header *h)
{
	int64_t r0, m, r1;

	h->clock_id = CLOCK_MONOTONIC;
	/* a realtime reading on each side of the monotonic one: their mean
	 * pairs the two clocks to within the gap */
	r0 = ts_ns(CLOCK_REALTIME);
	m = ts_ns(CLOCK_MONOTONIC);
	r1 = ts_ns(CLOCK_REALTIME);
	h->realtime_ns = r0 + (r1 - r0) / 2;
	h->monotonic_ns = m;
	h->start_ns = m;
}

/*
 * The credentials the first process starts with: the recorder's (the
 * program inherits them), or with -p those of the process attached to,
 * from /proc/PID/status: "Uid:" and "Gid:" (real, effective, saved,
 * filesystem), "Groups:" and "Umask:", copied as the kernel writes them,
 * into @uid, @gid (64 bytes each), @groups (@cap) and @mask (64): the
 * header's record.uid, record.gid, record.groups and record.umask.  The
 * replay starts the first threads with them and follows the set*id and
 * umask calls from there (replay/creds.c, replay/umask.c).  A list of
 * groups longer than @groups holds is left out (the replay keeps its own
 * then).  @return : how many keys it set.
 */
static int read_creds(pid_t pid, char *uid, char *gid, char *groups, char *mask, size_t cap)
{
	char path[64], line[4096];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", pid ? (int)pid : (int)getpid());
	f = fopen(path, "re");
	if (!f)
		return 0;
	uid[0] = gid[0] = groups[0] = mask[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':'), *e;
		char *dst = NULL;
		size_t room = 64;

		if (!v)
			continue;
		*v++ = 0;
		if (strcmp(line, "Uid") == 0)
			dst = uid;
		else if (strcmp(line, "Gid") == 0)
			dst = gid;
		else if (strcmp(line, "Groups") == 0)
			dst = groups, room = cap;
		else if (strcmp(line, "Umask") == 0)
			dst = mask;
		if (!dst)
			continue;
		if (!strchr(v, '\n'))
			continue;	/* longer than the line buffer: left out */
		v += strspn(v, " \t");
		e = v + strlen(v);
		while (e > v && (e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t'))
			*--e = 0;
		for (e = v; *e; e++)
			if (*e == '\t')
				*e = ' ';
		if (strlen(v) >= room)
			continue;
		strcpy(dst, v);
		n++;
	}
	fclose(f);
	return n;
}

static const char *policy_name(int p)
{
	return p == REC_CPU_ONE ? "one" : p == REC_CPU_NONE ? "none" : "auto";
}

int rec_header_fill(struct iot_header *h, const struct rec_opts *o,
		    int seccomp, int64_t stop_cost, char **argv, const char *fastpath,
		    const char *backend)
{
	struct utsname u;
	char host[256] = "", *cwd;
	static char stop_cpu[32], proc_cpu[32], data[64];
	static char uid[64], gid[64], groups[4096], mask[64];
	/* exits seen by BPF: exact CPU times (bpf_events.c) */
	int bpf_exit = strcmp(backend, "bpf") == 0 || strcmp(backend, "mixed") == 0;
	struct iot_kv *kv;
	uint32_t argc = 0;

	memset(h, 0, sizeof(*h));
	h->kind = IOT_KIND_TRACE;
	h->tool_version = IOT_VERSION;
	if (uname(&u) == 0) {
		h->kernel = strdup(u.release);
		h->arch = strdup(u.machine);
	}
	gethostname(host, sizeof(host) - 1);
	h->host = strdup(host);
	while (argv && argv[argc])
		argc++;
	h->argc = argc;
	h->argv = (const char *const *)argv;
	cwd = getcwd(NULL, 0);
	h->cwd = cwd;
	rec_header_clock(h);
	read_mounts(h);
	h->stop_cost_ns = stop_cost;
	/* which path recorded what: ptrace events carry two stops in their
	 * times, fast-path events (flag IOT_EV_FASTPATH) none */
	h->recorder = strcmp(backend, "bpf") == 0 ? "bpf" :
		      strcmp(backend, "mixed") == 0 ? "bpf+fastpath" :
		      fastpath && strcmp(fastpath, "on") == 0 ? "ptrace+seccomp+fastpath" :
		      seccomp ? "ptrace+seccomp" : "ptrace";
	kv = calloc(14, sizeof(*kv));
	if (kv) {
		kv[0].key = "record.seccomp";
		kv[0].value = seccomp ? "1" : "0";
		kv[1].key = "record.cpu_policy";
		kv[1].value = policy_name(o->cpu_policy);
		kv[2].key = "record.fastpath";
		kv[2].value = fastpath ? fastpath : "off";
		kv[3].key = "record.backend";
		kv[3].value = backend;
		h->extra = kv;
		h->n_extra = 4;
		/* CPU times to the nanosecond, and what a stop adds to them:
		 * the replay bounds think time by them (replay/budget.c) */
		if (rec_stop_cpu() >= 0 || bpf_exit) {
			/* the BPF and mixed backends' are exact too (the
			 * scheduler's run time at exit) and hold no stop: their
			 * few (calls that change names) the replay does not
			 * count either */
			snprintf(stop_cpu, sizeof(stop_cpu), "%lld",
				 bpf_exit ? 0LL : (long long)rec_stop_cpu());
			kv[4].key = "record.stop_cpu_ns";
			kv[4].value = stop_cpu;
			h->n_extra = 5;
		}
		/* a traced process's start, beyond its stops (setup.c) */
		if (!bpf_exit && rec_stop_cpu() >= 0 && rec_proc_cpu() >= 0) {
			snprintf(proc_cpu, sizeof(proc_cpu), "%lld", (long long)rec_proc_cpu());
			kv[h->n_extra].key = "record.proc_cpu_ns";
			kv[h->n_extra].value = proc_cpu;
			h->n_extra++;
		}
		/* a ptrace recording's exit records are timed when its end
		 * began, at the exit event (tracer.c's on_death()) */
		if (!bpf_exit) {
			kv[h->n_extra].key = "record.exit_at";
			kv[h->n_extra].value = "event";
			h->n_extra++;
		}
		/* what the first process's file calls run as */
		if (read_creds(o->attach_pid, uid, gid, groups, mask, sizeof(groups)) > 0) {
			if (uid[0]) {
				kv[h->n_extra].key = "record.uid";
				kv[h->n_extra++].value = uid;
			}
			if (gid[0]) {
				kv[h->n_extra].key = "record.gid";
				kv[h->n_extra++].value = gid;
			}
			/* "" when it has none: the key says the list was read */
			kv[h->n_extra].key = "record.groups";
			kv[h->n_extra++].value = groups;
			/* the mask its files are made without (replay/umask.c) */
			if (mask[0]) {
				kv[h->n_extra].key = "record.umask";
				kv[h->n_extra++].value = mask;
			}
		}
		/* --data: only then, so that a trace without is as before */
		if (o->data_max) {
			snprintf(data, sizeof(data), "max=%llu total=%llu",
				 (unsigned long long)o->data_max,
				 (unsigned long long)o->data_total);
			kv[h->n_extra].key = "record.data";
			kv[h->n_extra].value = data;
			h->n_extra++;
		}
	}
	return 0;
}

void rec_header_free(struct iot_header *h)
{
	size_t i;

	free((char *)h->kernel);
	free((char *)h->arch);
	free((char *)h->host);
	free((char *)h->cwd);
	for (i = 0; i < h->n_mounts; i++) {
		struct iot_mount *m = (struct iot_mount *)&h->mounts[i];

		free((char *)m->device);
		free((char *)m->mountpoint);
		free((char *)m->fstype);
		free((char *)m->root);
		free((char *)m->options);
	}
	free((void *)h->mounts);
	free((void *)h->extra);
	memset(h, 0, sizeof(*h));
}
