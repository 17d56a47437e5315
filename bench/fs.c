/*
 * fs.c - make, mount and remove the filesystems iotape bench runs on.
 *
 * mkfs, losetup and mount run as commands (their messages are the ones
 * users know); their output goes to a log in the work directory, and the
 * last lines of it are shown when one fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine.h"
#include "bench.h"
#include "replay.h"

#define CMD "bench"

/* The configurations bench knows: what validate compares too. */
static const struct bench_fs known_fs[] = {
	{ "ext2",           "ext2",  "mkfs.ext2 -F -q",                   "" },
	{ "ext3",           "ext3",  "mkfs.ext3 -F -q",                   "data=ordered" },
	{ "ext3-ordered",   "ext3",  "mkfs.ext3 -F -q",                   "data=ordered" },
	{ "ext3-writeback", "ext3",  "mkfs.ext3 -F -q",                   "data=writeback" },
	{ "ext3-journal",   "ext3",  "mkfs.ext3 -F -q",                   "data=journal" },
	{ "ext4",           "ext4",  "mkfs.ext4 -F -q",                   "" },
	{ "ext4-nojournal", "ext4",  "mkfs.ext4 -F -q -O ^has_journal",   "" },
	{ "xfs",            "xfs",   "mkfs.xfs -f -q",                    "" },
	{ "btrfs",          "btrfs", "mkfs.btrfs -f -q",                  "" },
	{ "tmpfs",          "tmpfs", NULL,                                "" },
};

#define N_KNOWN (sizeof(known_fs) / sizeof(known_fs[0]))

void bench_fs_names(FILE *f)
{
	size_t i;

	for (i = 0; i < N_KNOWN; i++)
		fprintf(f, " %s", known_fs[i].name);
}

const struct bench_fs *bench_find_fs(const char *name)
{
	size_t i;

	for (i = 0; i < N_KNOWN; i++)
		if (strcmp(known_fs[i].name, name) == 0)
			return &known_fs[i];
	return NULL;
}

/*
 * A filesystem much smaller than the ones it is used at runs where its
 * space runs short, and then measures that, not the workload: postmark
 * (4,000 small files, 40,000 transactions; tests/validate/postmark.sh)
 * on a fresh 513 MiB btrfs spent 85-90 % of its run waiting in metadata
 * space reservations (creates and buffered writes queued for the flusher,
 * 400-740 transaction commits), and took 17-25 s natively and 20-31 s
 * replayed, runs of the same work; on 4 GiB it took 3.6-3.9 s, both ways
 * (docs/VALIDATION.md, 2026-12-03, evening).  The image is sparse: its
 * size costs only what the filesystem writes.  4 GiB is also what
 * 'iotape validate' records on.
 */
uint64_t bench_default_size(uint64_t need)
{
	/* twice what the tree and the writes need, plus room for journals
	 * and metadata (xfs wants at least 300 MiB) */
	uint64_t size = need * 2 + (512ull << 20);

	if (size < BENCH_MIN_IMAGE)
		size = BENCH_MIN_IMAGE;
	return (size + (1 << 20) - 1) & ~((1ull << 20) - 1);
}

int bench_parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v = strtod(s, &end);

	/* !(v > 0) also refuses "nan" */
	if (end == s || !(v > 0) || isinf(v))
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v *= 1024; end++; break;
	case 'm': case 'M': v *= 1024.0 * 1024; end++; break;
	case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
	case 't': case 'T': v *= 1024.0 * 1024 * 1024 * 1024; end++; break;
	}
	if (*end == 'i')
		end++;
	if (*end == 'B')
		end++;
	/* past 2^63 the cast to uint64_t is undefined */
	if (*end || v >= 9.2e18)
		return -EINVAL;
	*out = (uint64_t)v;
	return 0;
}

/* Run "sh -c @cmd" with output to the work directory's log.
 * @return : 0, or -EIO after printing the command's last lines. */
static int run_sh(const struct bench_live *l, const char *what, const char *cmd,
		  char *out, size_t outlen)
{
	char log[PATH_MAX + 16], line[512];
	pid_t pid;
	int status, fd;
	FILE *f;

	snprintf(log, sizeof(log), "%s/cmd.log", l->workdir);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		/* a child of its own group: a terminal's Ctrl-C reaches bench,
		 * which then undoes what this command did */
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (out && outlen) {
		out[0] = 0;
		f = fopen(log, "r");
		if (f) {
			if (fgets(out, (int)outlen, f))
				out[strcspn(out, "\n")] = 0;
			fclose(f);
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	iot_err(CMD, "%s failed: %s", what, cmd);
	f = fopen(log, "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			iot_msg(IOT_MSG_QUOTE, CMD, "%.*s", (int)strcspn(line, "\n"), line);
		fclose(f);
	}
	return -EIO;
}

int bench_workdir_create(struct bench_live *l, const char *scratch)
{
	memset(l, 0, sizeof(*l));
	snprintf(l->workdir, sizeof(l->workdir), "%s/iotape-bench.%d", scratch, (int)getpid());
	/* others may pass through, not list: a workload that runs a part as
	 * another user (a database server under its own account) reaches its
	 * directory on the mounted filesystems; the images stay 0600 */
	if (mkdir(l->workdir, 0711) < 0 || chmod(l->workdir, 0711) < 0)
		return -errno;
	return 0;
}

/* A file the replay left append-only or immutable (its starting tree's
 * state, or the workload's chattr), or one in such a directory, is
 * removed once those flags are off: EPERM before. */
static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	char dir[PATH_MAX];

	if (remove(path) == 0 || errno != EPERM)
		return 0;
	rpl_clear_attr_flags(AT_FDCWD, path);
	if (ftw->base > 0 && (size_t)ftw->base < sizeof(dir)) {
		memcpy(dir, path, (size_t)ftw->base);
		dir[ftw->base] = 0;
		rpl_clear_attr_flags(AT_FDCWD, dir);
	}
	remove(path);
	return 0;
}

void bench_rm_tree(const char *path)
{
	nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

void bench_workdir_remove(struct bench_live *l)
{
	if (!l->workdir[0])
		return;
	bench_teardown(l, NULL);
	bench_rm_tree(l->workdir);
	l->workdir[0] = 0;
}

void bench_catch_signals(void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void bench_drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, "3\n", 2) < 0) {
		/* not fatal: the replay then runs with a warmer cache */
	}
	close(fd);
}

void bench_dir_label(const char *dir, char *label, size_t len)
{
	char real[PATH_MAX];
	const char *base;
	size_t n;

	/* the label is part of the profiles' file names, so it is the last
	 * component of the real path: "." and "a/.." have a name, and "/",
	 * which has none, is "root" */
	if (!realpath(dir, real))
		snprintf(real, sizeof(real), "%s", dir);
	n = strlen(real);
	while (n > 0 && real[n - 1] == '/')
		real[--n] = 0;
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	snprintf(label, len, "dir-%s", base[0] ? base : "root");
}

int bench_setup(struct bench_live *l, const struct bench_opts *o,
		const struct bench_config *c, char *mkfs_desc, size_t len)
{
	char cmd[2 * PATH_MAX + 512], opts[512];
	int rc, fd;

	mkfs_desc[0] = 0;
	if (c->dir) {
		/* a filesystem the user mounted: replay in a fresh subdirectory */
		snprintf(l->root, sizeof(l->root), "%s/.iotape-bench.%d", c->dir, (int)getpid());
		if (mkdir(l->root, 0755) < 0) {
			rc = -errno;
			iot_err(CMD, "%s: cannot create %s: %s", c->name, l->root, strerror(errno));
			l->root[0] = 0;
			return rc;
		}
		l->dir_root = 1;
		snprintf(mkfs_desc, len, "(user-mounted %s)", c->dir);
		return 0;
	}
	snprintf(l->mnt, sizeof(l->mnt), "%s/mnt-%s", l->workdir, c->name);
	if (mkdir(l->mnt, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(opts, sizeof(opts), "%s%s%s", c->fs->mount_opts,
		 c->fs->mount_opts[0] && c->mount_extra ? "," : "",
		 c->mount_extra ? c->mount_extra : "");
	if (!c->fs->mkfs) {
		snprintf(cmd, sizeof(cmd), "mount -t tmpfs -o size=%llu%s%s tmpfs '%s'",
			 (unsigned long long)o->image_size, opts[0] ? "," : "", opts, l->mnt);
		snprintf(mkfs_desc, len, "(tmpfs size=%llu)", (unsigned long long)o->image_size);
		rc = run_sh(l, "mount", cmd, NULL, 0);
		if (rc < 0)
			return rc;
		l->mounted = 1;
		goto root;
	}
	snprintf(l->image, sizeof(l->image), "%s/%s.img", l->workdir, c->name);
	fd = open(l->image, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)o->image_size) < 0) {
		rc = -errno;
		iot_err(CMD, "%s: cannot create the %llu-byte image %s: %s", c->name,
			(unsigned long long)o->image_size, l->image, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "losetup --find --show '%s'", l->image);
	rc = run_sh(l, "losetup", cmd, l->loopdev, sizeof(l->loopdev));
	if (rc < 0) {
		l->loopdev[0] = 0;
		return rc;
	}
	if (strncmp(l->loopdev, "/dev/", 5) != 0) {
		iot_err(CMD, "losetup printed '%s', not a device", l->loopdev);
		l->loopdev[0] = 0;
		return -EIO;
	}
	snprintf(mkfs_desc, len, "%s%s%s", c->fs->mkfs, c->mkfs_extra ? " " : "",
		 c->mkfs_extra ? c->mkfs_extra : "");
	snprintf(cmd, sizeof(cmd), "%s '%s'", mkfs_desc, l->loopdev);
	rc = run_sh(l, "mkfs", cmd, NULL, 0);
	if (rc < 0)
		return rc;
	snprintf(cmd, sizeof(cmd), "mount -t %s %s%s '%s' '%s'", c->fs->fstype,
		 opts[0] ? "-o " : "", opts, l->loopdev, l->mnt);
	rc = run_sh(l, "mount", cmd, NULL, 0);
	if (rc < 0)
		return rc;
	l->mounted = 1;
root:
	snprintf(l->root, sizeof(l->root), "%s", l->mnt);
	return 0;
}

int bench_teardown(struct bench_live *l, const struct bench_opts *o)
{
	int rc = 0, i;

	if (l->dir_root && l->root[0]) {
		bench_rm_tree(l->root);
		l->dir_root = 0;
	}
	if (l->mounted) {
		/* a replay just killed may still hold files open for a moment */
		for (i = 0; i < 50; i++) {
			if (umount2(l->mnt, 0) == 0 || errno == EINVAL || errno == ENOENT)
				break;
			usleep(100000);
		}
		if (i == 50 && umount2(l->mnt, MNT_DETACH) < 0) {
			iot_err(CMD, "%s: cannot unmount: %s; run 'umount -l %s'", l->mnt,
				strerror(errno), l->mnt);
			rc = -EBUSY;
		}
		l->mounted = 0;
	}
	if (l->mnt[0]) {
		rmdir(l->mnt);
		l->mnt[0] = 0;
	}
	if (l->loopdev[0]) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "losetup -d '%s'", l->loopdev);
		if (run_sh(l, "losetup -d", cmd, NULL, 0) < 0)
			rc = -EIO;
		l->loopdev[0] = 0;
	}
	if (l->image[0]) {
		unlink(l->image);
		l->image[0] = 0;
	}
	l->root[0] = 0;
	return rc;
}

int bench_mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	size_t i, n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != 0)
			continue;
		buf[i] = 0;
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		buf[i] = path[i];
	}
	return 0;
}

int bench_run_setup(const struct bench_live *l, const char *cmd, const char *dir)
{
	char *sh = NULL;
	int rc;

	rc = bench_mkdir_p(dir);
	if (rc < 0) {
		iot_err(CMD, "--setup: cannot create %s: %s", dir, strerror(-rc));
		return rc;
	}
	/* the directory goes in the environment, not in the command line:
	 * no quoting to get wrong */
	if (setenv("IOTAPE_SETUP_DIR", dir, 1) < 0 ||
	    asprintf(&sh, "cd \"$IOTAPE_SETUP_DIR\" && { %s\n}", cmd) < 0) {
		rc = -ENOMEM;
		goto out;
	}
	rc = run_sh(l, "--setup", sh, NULL, 0);
out:
	unsetenv("IOTAPE_SETUP_DIR");
	free(sh);
	return rc;
}
