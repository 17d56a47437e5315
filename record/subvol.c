/*
 * subvol.c - btrfs's subvolume calls (BTRFS_IOC_SUBVOL_CREATE, _SNAP_CREATE,
 * _SNAP_DESTROY and their _V2 forms, iot_subvol_call()): ioctls that make
 * or remove a name, the name inside their struct.  The event keeps what a
 * replay needs (format/iotape.h, IOT_SUBVOL_*): the name joined with the
 * descriptor's directory as its path, as mkdir's or rmdir's, a snapshot's
 * source as its second path, the struct's flags (a read-only snapshot) and
 * the source's descriptor; their states are taken before the call, as
 * mkdir's are: at ptrace's entry stop (decode.c), in bpf's guard
 * (bpf_guard.c); the fast path leaves these calls to the entry stop.
 * Kept as the pointer alone, the replay left the call out and every call
 * under the subvolume failed with ENOENT.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"

ssize_t rec_subvol_read(pid_t tid, uint32_t req, uint64_t ptr, int64_t *flags, int64_t *src,
			char *name, size_t cap)
{
	uint32_t off, max;
	int64_t hd[3];		/* fd, transid, flags (_v2) */
	size_t n;

	if (!iot_subvol_call(req, &off, &max) || !ptr)
		return -EINVAL;
	n = off == 8 ? 8 : sizeof(hd);
	if (rec_read_mem(tid, ptr, hd, n) != (ssize_t)n)
		return -EFAULT;
	*src = hd[0];
	*flags = off == 8 ? 0 : hd[2] & 0xffffffffLL;
	if (*flags & IOT_SUBVOL_BY_ID)
		return -EINVAL;		/* a subvolume id, no name */
	return rec_read_str(tid, ptr + off, name, cap < max ? cap : max);
}

char *rec_subvol_path(const struct rec_task *t, int64_t dirfd, const char *name, int64_t t_enter,
		      uint32_t *len)
{
	const char *base = rec_fd_path_at(t, dirfd, NULL, t_enter);

	/* a name only: "", ".", "..", one with a slash makes nothing */
	if (!base || !name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return NULL;
	return rec_task_path_abs(t, base, name, len);
}

int rec_subvol_entry(struct rec_ctx *c, struct rec_task *t, const uint64_t *args)
{
	struct iot_event *ev = &t->ev;
	int kind = iot_subvol_call((uint32_t)args[1], NULL, NULL);
	int64_t flags = -1, src = -1;
	uint32_t len = 0;
	const char *p;
	ssize_t n = -1;

	if (!t->view) {
		n = rec_subvol_read(t->tid, (uint32_t)args[1], args[2], &flags, &src, c->buf,
				    REC_PATH_MAX);
	} else if (t->view->str[2]) {
		/* the bpf programs read the struct at entry: its flags and
		 * fd in place of the pointer, its name as a string */
		n = t->view->slen[2] < REC_PATH_MAX ? t->view->slen[2] : REC_PATH_MAX - 1;
		memcpy(c->buf, t->view->str[2], (size_t)n);
		c->buf[n] = 0;
		flags = (int64_t)args[IOT_SUBVOL_FLAGS];
		src = (int64_t)(int32_t)args[IOT_SUBVOL_SRC_FD];
		if (flags < 0 || (flags & IOT_SUBVOL_BY_ID))
			n = -1;
	}
	ev->nargs = IOT_SUBVOL_NARGS;
	ev->args[IOT_SUBVOL_FLAGS] = n > 0 ? flags : -1;
	ev->args[IOT_SUBVOL_SRC_FD] = n > 0 && kind == IOT_SUBVOL_SNAP ? (int32_t)src : -1;
	if (n <= 0 || !(t->path = rec_subvol_path(t, (int32_t)args[0], c->buf, ev->t_enter, &len))) {
		ev->args[IOT_SUBVOL_FLAGS] = ev->args[IOT_SUBVOL_SRC_FD] = -1;
		return 0;
	}
	ev->path = t->path;
	ev->path_len = len;
	if (kind == IOT_SUBVOL_SNAP &&
	    (p = rec_fd_path_at(t, ev->args[IOT_SUBVOL_SRC_FD], &len, ev->t_enter)) &&
	    (t->path2 = strndup(p, len))) {
		ev->path2 = t->path2;
		ev->path2_len = len;
	}
	return 1;
}

void rec_subvol_states(struct rec_ctx *c, struct rec_task *t, const uint64_t *args)
{
	int64_t flags, src;
	uint32_t len;
	const char *s;
	char *p;

	if (rec_subvol_read(t->tid, (uint32_t)args[1], args[2], &flags, &src, c->buf,
			    REC_PATH_MAX) <= 0)
		return;
	p = rec_subvol_path(t, (int32_t)args[0], c->buf, INT64_MAX, &len);
	c->state_task = t;
	if (p)
		rec_path_state(c, p, len, NULL);
	if (p && iot_subvol_call((uint32_t)args[1], NULL, NULL) == IOT_SUBVOL_SNAP &&
	    (s = rec_fd_path(t, (int32_t)src, &len)))
		rec_path_state(c, s, len, NULL);
	c->state_task = NULL;
	free(p);
}
