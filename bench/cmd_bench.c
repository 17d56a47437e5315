/*
 * cmd_bench.c - iotape bench: replay one trace on a matrix of freshly made
 * filesystems and print the comparison table.
 *
 * Each configuration and run goes through: loop image -> mkfs -> mount ->
 * prepare (iotape replay --prepare-only) -> sync, drop caches -> replay
 * (iotape replay --no-prepare -o PROFILE) -> umount -> losetup -d -> rm.
 * Replay and diff run as child processes of this very binary, so a crash
 * in one configuration cannot leave the others' mounts behind, and the
 * cleanup below runs on every exit path, SIGINT and SIGTERM included.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "iotape.h"
#include "bench.h"
#include "replay.h"

#define CMD "bench"
#define MAX_CONFIGS 64
#define MAX_PROFILES 1024


/* What is mounted or attached right now: undone by bench_cleanup(). */
static struct bench_live live;
static volatile sig_atomic_t stop_sig;
static pid_t child_pid;

static void on_signal(int sig)
{
	stop_sig = sig;
	if (child_pid > 0)
		kill(child_pid, sig);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iotape bench TRACE [--fs LIST | --dir DIR...] [options]\n\n"
		"Replay TRACE on freshly made filesystems, one after another, and print\n"
		"the comparison table (values for the first configuration, ratios for\n"
		"the rest; a single profile is shown by 'iotape report'). Loop\n"
		"filesystems need root; --dir works without.\n\n"
		"Options:\n"
		"  --fs LIST            configurations, comma-separated (default: tmpfs,ext4,xfs,btrfs)\n"
		"  --dir DIR            also bench in DIR, a filesystem you mounted (repeatable)\n"
		"  --runs N             runs per configuration (default 1); medians are compared\n"
		"  --mkfs-opt FS=OPTS   extra mkfs options for configuration FS (repeatable)\n"
		"  --mount-opt FS=OPTS  extra mount options for configuration FS (repeatable)\n"
		"  --image-size SIZE    loop image size (e.g. 2G; default: twice the trace's needs\n"
		"                       and 512M more, 4G at least)\n"
		"  --scratch DIR        where images and mount points go (default /var/tmp)\n"
		"  --timing MODE        replay timing: original (default), afap, scale=F\n"
		"  -o, --out DIR        keep profiles in DIR (default: TRACE-bench/)\n"
		"  --html FILE          also write an HTML report with plots\n"
		"  --no-drop-caches     keep the page cache between prepare and replay\n"
		"  --setup CMD          run 'sh -c CMD' in the trace's working directory on each\n"
		"                       fresh filesystem before prepare (the starting state the\n"
		"                       workload had: a tree copied in, a repository)\n"
		"  --clients LIST       the client series: each configuration once per count\n"
		"                       in LIST (e.g. 1,2,4,8), named NAME-cN, replayed by\n"
		"                       replay --clients N; the table adds throughput and\n"
		"                       p50/p99 per class against the number of clients\n"
		"  --events N           replay only the trace's first N events (replay --events)\n"
		"  -q, --quiet          no progress lines\n\n"
		"Configurations:");
	bench_fs_names(f);
	fprintf(f, "\n\nExamples:\n"
		"  iotape bench copy.iotape --fs ext2,ext3-ordered,ext3-writeback,ext3-journal,"
		"ext4,ext4-nojournal,xfs,btrfs,tmpfs --runs 3 --html bench.html\n"
		"  iotape bench build.iotape --fs ext4,xfs --mkfs-opt xfs=-m,reflink=1 "
		"--mount-opt ext4=noatime\n"
		"  iotape bench copy.iotape --dir /mnt/a --dir /mnt/b\n"
		"  iotape bench copy.iotape --fs tmpfs,ext4 --clients 1,2,4,8\n\n"
		"A configuration that fails (an image too small for its filesystem or\n"
		"for the starting tree, a replay stopped by ENOSPC, EIO, EROFS, ...) is\n"
		"marked FAILED in the table and the page, with why (\"ENOSPC at 41 %%\");\n"
		"its partial profile goes to OUT/failed/, apart from the complete ones;\n"
		"the other configurations still run.\n\n"
		"Exit status: 0 done; 1 a configuration failed (the others still ran);\n"
		"2 bad usage; 3 the trace is damaged (its complete part was used);\n"
		"130/143 interrupted (everything unmounted and removed).\n");
}


/* "FS=OPTS" options: find the one for @name. */
static const char *opt_for(char **list, int n, const char *name)
{
	size_t len = strlen(name);
	int i;

	for (i = n - 1; i >= 0; i--)
		if (strncmp(list[i], name, len) == 0 && list[i][len] == '=')
			return list[i] + len + 1;
	return NULL;
}


/* Run the iotape binary itself with @argv (argv[0] is replaced), waiting
 * for it while forwarding SIGINT/SIGTERM. @return : its exit status, or
 * 128+N if killed by signal N, or -errno. */
static int run_self(char **argv)
{
	char self[PATH_MAX];
	ssize_t n;
	int status;
	pid_t pid;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return -errno;
	self[n] = 0;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		argv[0] = self;
		execv(self, argv);
		_exit(126);
	}
	child_pid = pid;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			child_pid = 0;
			return -errno;
		}
	child_pid = 0;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* The bytes the starting tree and the workload's writes need, so the
 * image can be sized from the trace. */
static int trace_needs(const char *path, uint64_t *bytes, int *damaged,
		       char *why, size_t why_len, char *cwd, size_t cwd_len)
{
	const struct iot_summary *s;
	struct iot_reader *r;
	struct iot_item it;
	uint64_t need = 0;
	int rc;

	rc = iot_reader_open(&r, path);
	if (rc < 0)
		return rc;
	snprintf(cwd, cwd_len, "%s", iot_reader_header(r)->cwd ? iot_reader_header(r)->cwd : "/");
	while ((rc = iot_reader_next(r, &it)) > 0) {
		if (it.kind == IOT_ITEM_PATH_STATE) {
			need += it.u.ps.size + 4096;
		} else if (it.kind == IOT_ITEM_EVENT) {
			const struct iot_syscall *sc = iot_syscall_by_nr(it.u.ev.nr);

			if (sc && (sc->flags & IOT_SCF_WRITE) && it.u.ev.ret > 0)
				need += (uint64_t)it.u.ev.ret;
			else if (sc && sc->cls == IOT_CLASS_DIRECTORY)
				need += 512;
		}
	}
	s = iot_reader_summary(r);
	*damaged = iot_damage_text(why, why_len, s, iot_time_base(iot_reader_header(r), s));
	iot_reader_close(r);
	*bytes = need;
	/* damage met while reading is in the summary: not an error here */
	return rc < 0 && !*damaged ? rc : 0;
}

/* The starting tree's size, known from the trace before any image is
 * made: an --image-size it cannot fit is refused now, not after a mkfs
 * for each configuration.  @return : 0, or -ENOSPC after a message. */
static int image_too_small(struct bench_opts *o)
{
	struct rpl_opts ro = { .trace = o->trace, .cmd = CMD, .quiet = 1, .scale = 1.0 };
	char a[32], b[32];
	int i, loop = 0;

	for (i = 0; i < o->n_configs; i++)
		loop |= !o->configs[i].dir;
	if (rpl_tree_need(&ro, &o->tree_bytes) < 0)
		o->tree_bytes = 0;	/* said; the replay says it again */
	o->tree_bytes *= (uint64_t)o->max_clients;	/* a tree per client */
	if (!loop || !o->image_size || bench_tree_fits(o, o->tree_bytes))
		return 0;
	cli_err(CMD, "--image-size %s: the starting tree of %s holds %s of file data, which "
		"does not fit an image that small (a filesystem keeps part of it, and the tree "
		"may take 90 %% of the rest); give --image-size %lluM or more, or leave it out "
		"to size the images from the trace",
		iot_fmt_bytes(a, sizeof(a), (double)o->image_size), o->trace,
		iot_fmt_bytes(b, sizeof(b), (double)o->tree_bytes),
		(unsigned long long)((o->tree_bytes / 85 * 100 >> 20) + 2));
	return -ENOSPC;
}

static void progress(const struct bench_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void progress(const struct bench_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (o->quiet)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "iotape: bench: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* A VM that reports free memory to its host (virtio free page
 * reporting) faults that memory back in on its next use, several times
 * slower than memory it kept: a run that happens to get such memory is
 * slower, the filesystem not at all.  Say so; changing it is the user's
 * call. */
static void note_page_reporting(const struct bench_opts *o)
{
	FILE *f = fopen("/sys/module/page_reporting/parameters/page_reporting_order", "r");
	int order = -1;

	if (!f)
		return;
	if (fscanf(f, "%d", &order) != 1)
		order = -1;
	fclose(f);
	if (order >= 0 && order <= 10)
		progress(o, "note: this machine gives freed memory back to its host (free "
			 "page reporting), and using it again is slow: run times vary with "
			 "it.  Steadier: echo 11 > /sys/module/page_reporting/parameters/"
			 "page_reporting_order (now %d; write it back after)", order);
}

/* One configuration, one run: set up, prepare, replay, tear down.
 * @return : 0; 1 with @profile moved to @partial (a target fault stopped
 * the replay: fail.c); or negative, with @why said. */
static int bench_one(const struct bench_opts *o, const struct bench_config *c,
		     int run, const char *profile, char *why, size_t wlen,
		     char *partial, size_t plen)
{
	char mkfs_desc[1024], label[256], clients[16];
	char *av[32];
	int ac = 0, common, rc, rc2;
	double t0 = (double)iot_now_ns();

	snprintf(label, sizeof(label), "%s", c->name);
	rc = bench_setup(&live, o, c, mkfs_desc, sizeof(mkfs_desc));
	if (rc < 0) {
		snprintf(why, wlen, "making or mounting the filesystem failed (see above)");
		goto out;
	}
	if (stop_sig)
		goto out;
	/* once per client, in its own tree (replay --clients: ROOT/client-i) */
	for (int i = 0; o->setup && i < (c->clients ? c->clients : 1); i++) {
		char dir[2 * PATH_MAX + 32];

		/* the workload's directory as the replay will see it */
		if (c->clients)
			snprintf(dir, sizeof(dir), "%s/client-%d%s", live.root, i, o->setup_dir);
		else
			snprintf(dir, sizeof(dir), "%s%s", live.root, o->setup_dir);
		rc = bench_run_setup(&live, o->setup, dir);
		if (rc < 0)
			snprintf(why, wlen, "the --setup command failed (see above)");
		if (rc < 0 || stop_sig)
			goto out;
	}
	av[ac++] = (char *)"iotape";
	av[ac++] = (char *)"replay";
	av[ac++] = (char *)o->trace;
	av[ac++] = (char *)"--root";
	av[ac++] = live.root;
	av[ac++] = (char *)"--force";
	av[ac++] = (char *)"-q";
	if (c->clients) {
		snprintf(clients, sizeof(clients), "%d", c->clients);
		av[ac++] = (char *)"--clients";
		av[ac++] = clients;
	}
	if (o->events) {
		av[ac++] = (char *)"--events";
		av[ac++] = (char *)o->events;
	}
	common = ac;	/* the arguments both runs share end here */
	av[ac++] = (char *)"--prepare-only";
	av[ac] = NULL;
	rc = run_self(av);
	if (stop_sig)
		goto out;
	if (rc == IOT_EXIT_TARGET) {
		char a[32];

		snprintf(why, wlen, "the starting tree (%s of file data) does not fit",
			 iot_fmt_bytes(a, sizeof(a), (double)o->tree_bytes));
		cli_err(CMD, "%s run %d: %s", c->name, run, why);
		rc = -ENOSPC;
		goto out;
	}
	if (rc != 0 && rc != IOT_EXIT_DAMAGED) {
		cli_err(CMD, "%s run %d: preparing the starting tree failed (exit %d)",
			c->name, run, rc);
		snprintf(why, wlen, "preparing the starting tree failed (exit %d)", rc);
		rc = -EIO;
		goto out;
	}
	if (stop_sig)
		goto out;
	sync();
	if (o->drop_caches)
		bench_drop_caches();
	ac = common;
	av[ac++] = (char *)"--no-prepare";
	av[ac++] = (char *)"--timing";
	av[ac++] = (char *)o->timing;
	av[ac++] = (char *)"--label";
	av[ac++] = label;
	av[ac++] = (char *)"--mkfs";
	av[ac++] = mkfs_desc;
	av[ac++] = (char *)"-o";
	av[ac++] = (char *)profile;
	av[ac] = NULL;
	rc = run_self(av);
	if (stop_sig)
		goto out;
	if (rc == IOT_EXIT_TARGET) {
		rc = bench_fail_keep(o->outdir, profile, partial, plen, why, wlen);
		if (rc < 0) {
			cli_err(CMD, "%s run %d: %s; cannot move its partial profile %s: %s",
				c->name, run, why, profile, strerror(-rc));
			goto out;
		}
		cli_err(CMD, "%s run %d: FAILED: %s; partial profile kept apart: %s", c->name,
			run, why, partial);
		rc = 1;
		goto out;
	}
	if (rc != 0 && rc != IOT_EXIT_DAMAGED && rc != IOT_EXIT_MISMATCH) {
		cli_err(CMD, "%s run %d: replay failed (exit %d)", c->name, run, rc);
		snprintf(why, wlen, "replay failed (exit %d)", rc);
		rc = -EIO;
		goto out;
	}
	rc = 0;
	progress(o, "%-15s run %d/%d done in %.1f s -> %s", c->name, run, o->runs,
		 ((double)iot_now_ns() - t0) / 1e9, profile);
out:
	rc2 = bench_teardown(&live, o);
	if (rc == 0 && rc2 < 0) {
		snprintf(why, wlen, "unmounting or removing the filesystem failed");
		rc = rc2;
	}
	return rc;
}

/* Whether a configuration so far is named @name. */
static int name_taken(const struct bench_opts *o, const char *name)
{
	int i;

	for (i = 0; i < o->n_configs; i++)
		if (strcmp(o->configs[i].name, name) == 0)
			return 1;
	return 0;
}

static int add_config(struct bench_opts *o, const char *name, char **mkfs_opt, int n_mkfs,
		      char **mount_opt, int n_mount)
{
	const struct bench_fs *fs = bench_find_fs(name);
	struct bench_config *c;

	if (!fs) {
		cli_err(CMD, "unknown filesystem configuration '%s'; 'iotape bench --help' "
			"lists them", name);
		return -EINVAL;
	}
	if (o->n_configs >= MAX_CONFIGS)
		return -E2BIG;
	c = &o->configs[o->n_configs++];
	memset(c, 0, sizeof(*c));
	c->fs = fs;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->mkfs_extra = opt_for(mkfs_opt, n_mkfs, name);
	c->mount_extra = opt_for(mount_opt, n_mount, name);
	if (!c->mkfs_extra)
		c->mkfs_extra = opt_for(mkfs_opt, n_mkfs, fs->fstype);
	if (!c->mount_extra)
		c->mount_extra = opt_for(mount_opt, n_mount, fs->fstype);
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "fs", required_argument, NULL, 'f' },
		{ "dir", required_argument, NULL, 'd' },
		{ "runs", required_argument, NULL, 'r' },
		{ "mkfs-opt", required_argument, NULL, 'M' },
		{ "mount-opt", required_argument, NULL, 'O' },
		{ "image-size", required_argument, NULL, 's' },
		{ "scratch", required_argument, NULL, 'S' },
		{ "timing", required_argument, NULL, 't' },
		{ "out", required_argument, NULL, 'o' },
		{ "html", required_argument, NULL, 'H' },
		{ "no-drop-caches", no_argument, NULL, 'N' },
		{ "setup", required_argument, NULL, 'U' },
		{ "clients", required_argument, NULL, 'C' },
		{ "events", required_argument, NULL, 'E' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct bench_opts o;
	static char *mkfs_opt[MAX_CONFIGS], *mount_opt[MAX_CONFIGS], *dirs[MAX_CONFIGS];
	static char *profiles[MAX_PROFILES];
	static char fail_why[MAX_CONFIGS][400], partial[PATH_MAX];
	static int made[MAX_CONFIGS];
	static struct bench_fails fails;
	int n_mkfs = 0, n_mount = 0, n_dirs = 0, n_prof = 0, failed = 0;
	const char *fs_list = NULL, *clients = NULL;
	char outdir[PATH_MAX];
	char damage[320];
	int opt, rc, run, damaged = 0, made_outdir = 0, n_loop = 0;
	size_t i;

	memset(&o, 0, sizeof(o));
	o.runs = 1;
	o.max_clients = 1;
	o.scratch = "/var/tmp";
	o.timing = "original";
	o.drop_caches = 1;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:qh", lopts, NULL)) != -1) {
		switch (opt) {
		case 'f': fs_list = optarg; break;
		case 'd':
			if (n_dirs < MAX_CONFIGS)
				dirs[n_dirs++] = optarg;
			break;
		case 'r':
			if (!cli_parse_int(optarg, 1, 100, &o.runs)) {
				cli_err(CMD, "--runs %s: give 1 to 100", optarg);
				return IOT_EXIT_USAGE;
			}
			break;
		case 'M':
			if (!strchr(optarg, '=') || n_mkfs >= MAX_CONFIGS) {
				cli_err(CMD, "--mkfs-opt %s: expected FS=OPTIONS", optarg);
				return IOT_EXIT_USAGE;
			}
			mkfs_opt[n_mkfs++] = optarg;
			break;
		case 'O':
			if (!strchr(optarg, '=') || n_mount >= MAX_CONFIGS) {
				cli_err(CMD, "--mount-opt %s: expected FS=OPTIONS", optarg);
				return IOT_EXIT_USAGE;
			}
			mount_opt[n_mount++] = optarg;
			break;
		case 's':
			if (bench_parse_size(optarg, &o.image_size) < 0) {
				cli_err(CMD, "--image-size %s: expected a size like 512M or 2G", optarg);
				return IOT_EXIT_USAGE;
			}
			break;
		case 'S': o.scratch = optarg; break;
		case 't': o.timing = optarg; break;
		case 'o': o.outdir = optarg; break;
		case 'H': o.html = optarg; break;
		case 'N': o.drop_caches = 0; break;
		case 'U': o.setup = optarg; break;
		case 'C': clients = optarg; break;
		case 'E': {
			char *end;

			errno = 0;
			if (optarg[0] < '1' || optarg[0] > '9' || strtoull(optarg, &end, 10) == 0 ||
			    errno || *end) {
				cli_err(CMD, "--events %s: give a number of events, 1 or more", optarg);
				return IOT_EXIT_USAGE;
			}
			o.events = optarg;
			break;
		}
		case 'q': o.quiet = 1; break;
		case 'h': usage(stdout); return IOT_EXIT_OK;
		default: usage(stderr); return IOT_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		cli_err(CMD, optind >= argc ? "no trace given" : "one trace at a time");
		usage(stderr);
		return IOT_EXIT_USAGE;
	}
	o.trace = argv[optind];
	if (o.html && cli_same_file(o.trace, o.html)) {
		cli_err(CMD, "--html %s is the trace; give another file for the page", o.html);
		return IOT_EXIT_USAGE;
	}
	if (!fs_list && n_dirs == 0)
		fs_list = "tmpfs,ext4,xfs,btrfs";
	if (fs_list) {
		char *copy = strdup(fs_list), *save = NULL, *tok;

		for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (add_config(&o, tok, mkfs_opt, n_mkfs, mount_opt, n_mount) < 0) {
				free(copy);
				return IOT_EXIT_USAGE;
			}
		/* names point into the known configurations; the copy is no longer needed */
		free(copy);
	}
	for (i = 0; i < (size_t)n_dirs && o.n_configs < MAX_CONFIGS; i++) {
		struct bench_config *c = &o.configs[o.n_configs];
		const char *why = NULL;
		char label[sizeof(c->name)];
		struct stat st;
		int dup = 1;

		/* checked before the profile directory is made */
		if (stat(dirs[i], &st) < 0)
			why = strerror(errno);
		else if (!S_ISDIR(st.st_mode))
			why = "not a directory";
		if (why) {
			cli_err(CMD, "--dir %s: %s; give a directory on the filesystem to bench",
				dirs[i], why);
			return IOT_EXIT_FAIL;
		}
		memset(c, 0, sizeof(*c));
		c->dir = dirs[i];
		bench_dir_label(dirs[i], label, sizeof(label));
		/* two directories of one name would write the same profiles */
		snprintf(c->name, sizeof(c->name), "%s", label);
		while (name_taken(&o, c->name))
			snprintf(c->name, sizeof(c->name), "%.50s-%d", label, ++dup);
		o.n_configs++;
	}
	if (clients && bench_client_series(&o, clients) < 0)
		return IOT_EXIT_USAGE;
	if (getuid() != 0)
		for (i = 0; i < (size_t)o.n_configs; i++)
			if (!o.configs[i].dir) {
				cli_err(CMD, "%s: making loop filesystems needs root (losetup, mkfs, "
					"mount); run as root, or bench filesystems you mounted with "
					"--dir DIR", o.configs[i].name);
				return IOT_EXIT_FAIL;
			}

	rc = trace_needs(o.trace, &o.need_bytes, &damaged, damage, sizeof(damage), o.setup_dir,
			 sizeof(o.setup_dir));
	if (rc < 0) {
		cli_open_trace_msg(CMD, o.trace, rc);
		return IOT_EXIT_FAIL;
	}
	if (damaged)
		cli_warn(CMD, "%s: %s; benching its complete part", o.trace, damage);
	if (image_too_small(&o) < 0)
		return IOT_EXIT_FAIL;
	if (!o.image_size)
		o.image_size = bench_default_size(o.need_bytes * (uint64_t)o.max_clients);
	if (!o.outdir) {
		snprintf(outdir, sizeof(outdir), "%s-bench", o.trace);
		o.outdir = outdir;
	}
	if (mkdir(o.outdir, 0755) == 0) {
		made_outdir = 1;
	} else if (errno != EEXIST) {
		cli_err(CMD, "%s: cannot create the profile directory: %s", o.outdir,
			strerror(errno));
		return IOT_EXIT_FAIL;
	}

	bench_catch_signals(on_signal);

	rc = bench_workdir_create(&live, o.scratch);
	if (rc < 0) {
		cli_err(CMD, "%s: cannot create a scratch directory: %s", o.scratch,
			strerror(-rc));
		if (made_outdir)
			rmdir(o.outdir);
		return IOT_EXIT_FAIL;
	}
	note_page_reporting(&o);
	for (i = 0; i < (size_t)o.n_configs; i++)
		if (!o.configs[i].dir)
			n_loop++;
	if (n_loop)
		progress(&o, "%d configuration%s x %d run%s; images of %.0f MiB in %s",
			 o.n_configs, o.n_configs == 1 ? "" : "s", o.runs, o.runs == 1 ? "" : "s",
			 (double)o.image_size / (1 << 20), live.workdir);
	else
		progress(&o, "%d configuration%s x %d run%s", o.n_configs,
			 o.n_configs == 1 ? "" : "s", o.runs, o.runs == 1 ? "" : "s");
	/* runs outermost, so slow drift of the machine spreads over all
	 * configurations instead of biasing one */
	for (run = 1; run <= o.runs && !stop_sig; run++)
		for (i = 0; i < (size_t)o.n_configs && !stop_sig; i++) {
			char prof[PATH_MAX];

			snprintf(prof, sizeof(prof), "%s/%s.%d.iotape", o.outdir,
				 o.configs[i].name, run);
			if (bench_fail_early(&o, &o.configs[i], fail_why[i], sizeof(fail_why[i]))) {
				if (run == 1)
					cli_err(CMD, "%s: FAILED: %s; going on with the others",
						o.configs[i].name, fail_why[i]);
				failed++;
				continue;
			}
			progress(&o, "%-15s run %d/%d: mkfs, mount, prepare, replay", o.configs[i].name,
				 run, o.runs);
			fail_why[i][0] = 0;	/* this run's, not an earlier one's */
			rc = bench_one(&o, &o.configs[i], run, prof, fail_why[i], sizeof(fail_why[i]),
				       partial, sizeof(partial));
			if (rc < 0 || rc == 1)
				failed++;
			if (rc < 0) {
				/* on stderr too, not only in the table: 'iotape
				 * validate' keeps only that of a bench it runs */
				if (!stop_sig)
					cli_err(CMD, "%s run %d: FAILED: %s", o.configs[i].name, run,
						fail_why[i][0] ? fail_why[i] : "(no reason given)");
				continue;
			}
			if (n_prof < MAX_PROFILES) {
				profiles[n_prof++] = strdup(rc == 1 ? partial : prof);
				made[i]++;
			}
		}
	/* a configuration that made no profile at all is a FAILED column
	 * of the table all the same */
	for (i = 0; i < (size_t)o.n_configs; i++)
		if (!made[i] && fail_why[i][0])
			bench_fail_note(&fails, o.configs[i].name, "%s", fail_why[i]);
	bench_workdir_remove(&live);
	/* no profile was made: leave no empty directory behind either */
	if (made_outdir && n_prof == 0)
		rmdir(o.outdir);
	if (stop_sig) {
		cli_err(CMD, "interrupted by signal %d; every mount, loop device and image "
			"was removed", (int)stop_sig);
		return 128 + stop_sig;
	}
	if (n_prof > 0) {
		char *av[MAX_PROFILES + 2 * BENCH_MAX_FAILS + 8];
		int ac = 0, diff = n_prof + fails.n > 1;

		/* diff compares two files or more, and marks the failed
		 * configurations; one profile is shown by report */
		av[ac++] = (char *)"iotape";
		av[ac++] = diff ? (char *)"diff" : (char *)"report";
		for (i = 0; i < (size_t)n_prof; i++)
			av[ac++] = profiles[i];
		for (i = 0; diff && i < (size_t)fails.n; i++) {
			av[ac++] = (char *)"--failed";
			av[ac++] = fails.arg[i];
		}
		if (o.html) {
			av[ac++] = (char *)"--html";
			av[ac++] = (char *)o.html;
		}
		av[ac] = NULL;
		fflush(NULL);
		rc = run_self(av);
		if (rc != 0)
			failed++;
	}
	for (i = 0; i < (size_t)n_prof; i++)
		free(profiles[i]);
	if (failed) {
		cli_err(CMD, "%d configuration run%s failed (marked FAILED in the table%s); "
			"every mount, loop device and image was removed", failed,
			failed == 1 ? "" : "s", o.html ? " and the page" : "");
		return IOT_EXIT_FAIL;
	}
	return damaged ? IOT_EXIT_DAMAGED : IOT_EXIT_OK;
}
