/*
 * cred_drop DIR UID GID [caps] - run as root: makes DIR/priv (0700)
 * holding a file and DIR/pub (0777), then drops to UID:GID with no
 * supplementary groups (setgroups, setresgid, setresuid: glibc has each
 * thread make the raw calls), and then, as that user, in the main thread
 * and in a thread started before the drop: a stat of DIR/priv/secret
 * fails with EACCES, and a file made in DIR/pub (main, thread) is owned
 * by UID.  With "caps", the main thread keeps its capabilities through
 * the drop (PR_SET_KEEPCAPS) and raises them again (capset), as setpriv
 * does: its stat succeeds, its file is still UID's.  Exit 0 if every call
 * gave that, 1 if not, 77 if not run as root.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static const char *dir;
static pthread_barrier_t dropped;

static void as_user(const char *who, int capable)
{
	char p[4096];
	struct stat st;
	int fd;

	snprintf(p, sizeof(p), "%s/priv/secret", dir);
	CHECK("stat of priv/secret as the user", stat(p, &st) < 0 ? errno : 0,
	      capable ? 0 : EACCES);
	snprintf(p, sizeof(p), "%s/pub/%s", dir, who);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK("create in pub as the user", fd >= 0, 1);
	if (fd >= 0)
		close(fd);
}

static void *thread(void *arg)
{
	pthread_barrier_wait(&dropped);
	as_user("thread", 0);
	return NULL;
}

int main(int argc, char **argv)
{
	char p[4096];
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	pthread_t th;
	int caps;
	uid_t uid;
	gid_t gid;
	int fd;

	if (argc != 4 && argc != 5)
		return 2;
	caps = argc == 5;
	if (geteuid() != 0)
		return 77;
	dir = argv[1];
	uid = (uid_t)atoi(argv[2]);
	gid = (gid_t)atoi(argv[3]);
	snprintf(p, sizeof(p), "%s/priv", dir);
	CHECK("mkdir priv", mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/priv/secret", dir);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK("create priv/secret", fd >= 0, 1);
	if (fd >= 0)
		close(fd);
	snprintf(p, sizeof(p), "%s/pub", dir);
	CHECK("mkdir pub", mkdir(p, 0777), 0);
	CHECK("chmod pub", chmod(p, 0777), 0);
	pthread_barrier_init(&dropped, NULL, 2);
	if (pthread_create(&th, NULL, thread, NULL))
		return 1;
	if (caps)
		CHECK("keepcaps", prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0), 0);
	CHECK("setgroups", setgroups(0, NULL), 0);
	CHECK("setresgid", setresgid(gid, gid, gid), 0);
	CHECK("setresuid", setresuid(uid, uid, uid), 0);
	if (caps) {
		CHECK("capget", syscall(SYS_capget, &h, d), 0);
		d[0].effective = d[0].permitted;
		d[1].effective = d[1].permitted;
		CHECK("capset", syscall(SYS_capset, &h, d), 0);
	}
	pthread_barrier_wait(&dropped);
	as_user("main", caps);
	pthread_join(th, NULL);
	return fails ? 1 : 0;
}
