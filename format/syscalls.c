/*
 * syscalls.c - the table of recorded syscalls, built from syscalls.def.
 *
 * Numbers come from the kernel headers (__NR_*); a row whose number the
 * installed headers lack is given it below, from the kernel's
 * arch/x86/entry/syscalls/syscall_64.tbl.
 */
#include <asm/unistd_64.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>

#include "iotape.h"

#ifndef F_OFD_GETLK		/* <fcntl.h> without _GNU_SOURCE */
#define F_OFD_GETLK 36
#define F_OFD_SETLK 37
#define F_OFD_SETLKW 38
#endif

#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif

#define K(x) IOT_ARG_##x
#define KINDS(...) { __VA_ARGS__ }
#define NARGS_(a, b, c, d, e, f, n, ...) n
#define NARGS(...) NARGS_(__VA_ARGS__ __VA_OPT__(,) 6, 5, 4, 3, 2, 1, 0)

/* flag words in the .def (the class column is pasted, never expanded) */
#define READ IOT_SCF_READ
#define WRITE IOT_SCF_WRITE
#define RETFD IOT_SCF_RETFD
#define NOEXIT IOT_SCF_NOEXIT
#define COUNT IOT_SCF_COUNT
#define PIPE IOT_SCF_PIPE
#define CLOSE IOT_SCF_CLOSE
#define NAMES IOT_SCF_NAMES
#define PROBE IOT_SCF_PROBE
#define LOOK IOT_SCF_LOOK

#define MAP1(m, x) m(x)
#define MAP_0()
#define MAP_1(a) K(a)
#define MAP_2(a, b) K(a), K(b)
#define MAP_3(a, b, c) K(a), K(b), K(c)
#define MAP_4(a, b, c, d) K(a), K(b), K(c), K(d)
#define MAP_5(a, b, c, d, e) K(a), K(b), K(c), K(d), K(e)
#define MAP_6(a, b, c, d, e, f) K(a), K(b), K(c), K(d), K(e), K(f)
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define MAPK(...) CAT(MAP_, NARGS(__VA_ARGS__))(__VA_ARGS__)

#define SC(name, cls, flags, ...) \
	{ __NR_##name, #name, IOT_CLASS_##cls, (flags), NARGS(__VA_ARGS__), \
	  { MAPK(__VA_ARGS__) } },

static struct iot_syscall table[] = {
#include "syscalls.def"
};

#define N_ROWS (sizeof(table) / sizeof(table[0]))

/* Up to this number, lookups go through a direct map built on first use. */
#define MAP_MAX 512
static signed short by_nr[MAP_MAX];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static _Atomic int ready;

/*
 * Sorted by insertion, not qsort(): glibc's qsort() mallocs its buffer
 * for a table this size, and the fast path's library builds the table
 * from inside the first call it logs, which a malloc may make while
 * holding its own lock (rustc's jemalloc reads /etc/malloc.conf with
 * readlink() while it initializes: the second malloc waited for that
 * lock forever).  A few hundred rows, once.
 */
static void init_once(void)
{
	size_t i, j;

	for (i = 1; i < N_ROWS; i++) {
		struct iot_syscall row = table[i];

		for (j = i; j > 0 && table[j - 1].nr > row.nr; j--)
			table[j] = table[j - 1];
		table[j] = row;
	}
	for (i = 0; i < MAP_MAX; i++)
		by_nr[i] = -1;
	for (i = 0; i < N_ROWS; i++)
		if (table[i].nr >= 0 && table[i].nr < MAP_MAX)
			by_nr[table[i].nr] = (signed short)i;
	atomic_store_explicit(&ready, 1, memory_order_release);
}

/* The .def is grouped by family, not number: sort once, thread-safely.
 * Once sorted, a load tells so without a call into libc: the replayer
 * looks up a row up to four times per call it replays (~1 M lookups in
 * a replay of 338,000 calls), pthread_once() was a fifth of their cost. */
static void init(void)
{
	if (!atomic_load_explicit(&ready, memory_order_acquire))
		pthread_once(&once, init_once);
}

const struct iot_syscall *iot_syscall_table(size_t *n)
{
	init();
	if (n)
		*n = N_ROWS;
	return table;
}

const struct iot_syscall *iot_syscall_by_nr(int nr)
{
	init();
	if (nr < 0 || nr >= MAP_MAX || by_nr[nr] < 0)
		return NULL;
	return &table[by_nr[nr]];
}

const struct iot_syscall *iot_syscall_by_name(const char *name)
{
	size_t i;

	init();
	for (i = 0; i < N_ROWS; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

int iot_syscall_arg(const struct iot_syscall *sc, int kind)
{
	int i;

	for (i = 0; sc && i < sc->nargs && i < IOT_MAX_ARGS; i++)
		if (sc->arg[i] == kind)
			return i;
	return -1;
}

int iot_syscall_path_arg(const struct iot_syscall *sc)
{
	int i = iot_syscall_arg(sc, IOT_ARG_PATH);

	return i >= 0 ? i : iot_syscall_arg(sc, IOT_ARG_SOCKADDR);
}

int iot_syscall_wbuf(const struct iot_syscall *sc)
{
	int i;

	/* copy_file_range, sendfile, splice write bytes they read, not the
	 * program's own */
	if (!sc || !(sc->flags & IOT_SCF_WRITE) || (sc->flags & IOT_SCF_READ))
		return -1;
	i = iot_syscall_arg(sc, IOT_ARG_PTR);
	if (i < 0)
		i = iot_syscall_arg(sc, IOT_ARG_IOVLEN);
	return i >= 0 && i + 1 < sc->nargs ? i : -1;
}

int iot_fcntl_lock(int64_t cmd)
{
	switch ((int32_t)cmd) {
	case F_GETLK: case F_SETLK: case F_SETLKW:
	case F_OFD_GETLK: case F_OFD_SETLK: case F_OFD_SETLKW:
		return 1;
	}
	return 0;
}

void iot_flock_pack(const void *fl, int64_t out[3])
{
	struct flock f;

	if (!fl) {
		out[0] = -1;
		out[1] = out[2] = 0;
		return;
	}
	memcpy(&f, fl, sizeof(f));
	out[0] = (int64_t)((uint16_t)f.l_type | (uint32_t)(uint16_t)f.l_whence << 16);
	out[1] = (int64_t)f.l_start;
	out[2] = (int64_t)f.l_len;
}

int iot_fcntl_hint(int64_t cmd)
{
	return (int32_t)cmd == IOT_F_SET_RW_HINT || (int32_t)cmd == IOT_F_SET_FILE_RW_HINT;
}

int iot_ioctl_flags(uint32_t req)
{
	return req == IOT_FS_IOC_SETFLAGS || req == IOT_FS_IOC_FSSETXATTR;
}

/* _IOW(0x94, nr, struct btrfs_ioctl_vol_args): a name of 4088 bytes
 * after the fd; the _v2 struct (4096 bytes too): 4040 after fd, transid,
 * flags and 32 bytes of union */
static const struct { uint32_t req; int kind, v2; } subvol_calls[] = {
	{ 0x5000940eu, IOT_SUBVOL_MAKE, 0 }, { 0x50009418u, IOT_SUBVOL_MAKE, 1 },
	{ 0x50009401u, IOT_SUBVOL_SNAP, 0 }, { 0x50009417u, IOT_SUBVOL_SNAP, 1 },
	{ 0x5000940fu, IOT_SUBVOL_DESTROY, 0 }, { 0x5000943fu, IOT_SUBVOL_DESTROY, 1 },
};

int iot_subvol_call(uint32_t req, uint32_t *name_off, uint32_t *name_max)
{
	size_t i;

	for (i = 0; i < sizeof(subvol_calls) / sizeof(subvol_calls[0]); i++) {
		if (subvol_calls[i].req != req)
			continue;
		if (name_off)
			*name_off = subvol_calls[i].v2 ? 56 : 8;
		if (name_max)
			*name_max = subvol_calls[i].v2 ? 4040 : 4088;
		return subvol_calls[i].kind;
	}
	return IOT_SUBVOL_NONE;
}

uint32_t iot_subvol_req(size_t i)
{
	return i < sizeof(subvol_calls) / sizeof(subvol_calls[0]) ? subvol_calls[i].req : 0;
}

int iot_msg_fds(const struct iot_event *ev, int32_t out[])
{
	int64_t n = ev->nargs > 1 ? ev->args[1] : 0;
	int i;

	if ((ev->nr != __NR_sendmsg && ev->nr != __NR_recvmsg) || n <= 0)
		return 0;
	if (n > INT32_MAX)
		n = INT32_MAX;
	for (i = 0; i < n && i < IOT_MSG_FDS_MAX; i++) {
		uint32_t a = 3 + (uint32_t)i / 3;
		uint32_t v = a < ev->nargs && a < IOT_MAX_ARGS ?
			     (uint32_t)((uint64_t)ev->args[a] >> (i % 3 * 21)) & IOT_MSG_FD_NONE :
			     IOT_MSG_FD_NONE;

		out[i] = v == IOT_MSG_FD_NONE ? -1 : (int32_t)v;
	}
	return (int)n;
}

uint32_t iot_sock_ino_arg(int32_t nr)
{
	return nr == __NR_connect || nr == __NR_accept ? 3 : nr == __NR_accept4 ? 4 : 0;
}

uint64_t iot_sock_ino(const struct iot_event *ev)
{
	uint32_t a = iot_sock_ino_arg(ev->nr);

	return a && a < ev->nargs ? (uint64_t)ev->args[a] : 0;
}

void iot_sock_ino_set(struct iot_event *ev, uint64_t ino)
{
	uint32_t a = iot_sock_ino_arg(ev->nr);

	if (!a || !ino)
		return;
	ev->args[a] = (int64_t)ino;
	ev->nargs = a + 1;
}

void iot_msg_fds_set(struct iot_event *ev, const int32_t *fds, int n)
{
	int i, kept = n < IOT_MSG_FDS_MAX ? n : IOT_MSG_FDS_MAX;

	ev->args[1] = n > 0 ? n : 0;
	ev->nargs = 3;
	if (n <= 0)
		return;
	for (i = 3; i < IOT_MAX_ARGS; i++)
		ev->args[i] = 0;
	for (i = 0; i < kept; i++) {
		uint64_t v = fds[i] >= 0 && fds[i] < IOT_MSG_FD_NONE ? (uint64_t)fds[i] : IOT_MSG_FD_NONE;

		ev->args[3 + i / 3] = (int64_t)((uint64_t)ev->args[3 + i / 3] | v << (i % 3 * 21));
	}
	ev->nargs = 3 + (uint32_t)(kept + 2) / 3;
}

int iot_msg_fds_read(int (*peek)(void *ctx, uint64_t addr, void *buf, size_t n),
		     void *ctx, uint64_t msg, int32_t *fds, int max)
{
	struct msghdr m;
	uint64_t off = 0;
	int n = 0, k;

	if (!msg || peek(ctx, msg, &m, sizeof(m)) < 0)
		return 0;
	/* each cmsghdr, aligned as CMSG_NXTHDR() steps; a few at most */
	for (k = 0; k < 8 && off + sizeof(struct cmsghdr) <= m.msg_controllen; k++) {
		uint64_t at = (uint64_t)(uintptr_t)m.msg_control + off;
		struct cmsghdr h;

		if (peek(ctx, at, &h, sizeof(h)) < 0 || h.cmsg_len < sizeof(h) ||
		    h.cmsg_len > m.msg_controllen - off)
			break;
		if (h.cmsg_level == SOL_SOCKET && h.cmsg_type == SCM_RIGHTS) {
			int c = (int)((h.cmsg_len - CMSG_LEN(0)) / sizeof(int32_t)), i;

			for (i = 0; i < c; i++, n++)
				if (n < max && peek(ctx, at + CMSG_LEN(0) + i * sizeof(int32_t),
						    &fds[n], sizeof(int32_t)) < 0)
					fds[n] = -1;
		}
		off += CMSG_ALIGN(h.cmsg_len);
	}
	return n;
}

int64_t iot_timeout_ns(const void *p, int usec)
{
	int64_t t[2];

	if (!p)
		return -1;
	memcpy(t, p, sizeof(t));
	if (t[0] < 0 || t[1] < 0)
		return 0;
	if (t[0] >= INT64_MAX / 1000000000 - 1)
		return INT64_MAX;
	return t[0] * 1000000000 + (usec ? t[1] % 1000000 * 1000 : t[1] % 1000000000);
}

void iot_data_count_add(struct iot_data_count *c, const struct iot_event *ev)
{
	if (ev->data_len) {
		c->calls++;
		c->bytes += ev->data_len;
	}
	if (ev->flags & IOT_EV_NODATA) {
		c->nodata_calls++;
		c->nodata_bytes += ev->ret > 0 ? (uint64_t)ev->ret : 0;
	}
}

void iot_data_count_aio(struct iot_data_count *c, const struct iot_aio *a)
{
	if (a->kind != IOT_AIO_SUBMIT || !(iot_aio_op_dir(a->api, a->opcode) & IOT_SCF_WRITE))
		return;
	c->areqs++;
	c->abytes += a->len;
	if (a->data_len) {
		c->akept++;
		c->akept_bytes += a->data_len;
	}
}

void iot_data_count_mpages(struct iot_data_count *c, const struct iot_mpages *m)
{
	uint32_t k;

	for (k = 0; k < m->n_write; k++) {
		c->mp_written += m->write_runs[2 * k + 1];
		c->mp_written_bytes += m->write_runs[2 * k + 1] * m->page_size;
	}
}

const char *iot_class_name(int cls)
{
	static const char *const names[IOT_CLASS_COUNT] = {
		"metadata", "read", "write", "directory", "sync", "xattr", "process",
		"other", "async calls", "async read", "async write", "mapped read",
		"mapped write", "wait",
	};

	if (cls < 0 || cls >= IOT_CLASS_COUNT)
		return "?";
	return names[cls];
}

/* The number @s starts with, below @max, up to its end (or a '/' with
 * @slash); -1 if none. */
static int64_t num_at(const char *s, int64_t max, int slash, const char **end)
{
	int64_t v = 0;
	const char *q = s;

	while (*q >= '0' && *q <= '9' && v < max)
		v = v * 10 + (*q++ - '0');
	if (q == s || v >= max || !(*q == 0 || (slash && *q == '/')))
		return -1;
	*end = q;
	return v;
}

int64_t iot_path_fd(const char *s, int64_t fd_max, int32_t *pid)
{
	const char *e;
	int64_t v;

	*pid = 0;
	/* every path of every call may come here: the first letters rule
	 * most out */
	if (!s || s[0] != '/' || (s[1] != 'p' && s[1] != 'd'))
		return -1;
	if (strncmp(s, "/dev/", 5) == 0) {
		s += 5;
		if (strcmp(s, "stdin") == 0)
			return 0;
		if (strcmp(s, "stdout") == 0)
			return 1;
		if (strcmp(s, "stderr") == 0)
			return 2;
		return strncmp(s, "fd/", 3) == 0 ? num_at(s + 3, fd_max, 0, &e) : -1;
	}
	if (strncmp(s, "/proc/", 6) != 0)
		return -1;
	s += 6;
	if (strncmp(s, "self/", 5) == 0) {
		s += 5;
	} else if (strncmp(s, "thread-self/", 12) == 0) {
		s += 12;
	} else {
		if ((v = num_at(s, INT32_MAX, 1, &e)) <= 0 || *e != '/')
			return -1;
		*pid = (int32_t)v;
		s = e + 1;
	}
	if (strncmp(s, "fd/", 3) != 0)
		return -1;
	return num_at(s + 3, fd_max, 0, &e);
}
