/*
 * tracee_mem.c - strings, structs and written bytes read from the
 * tracee's memory.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "fastpath/fp.h"
#include "rec.h"

#define PAGE 4096UL
/* how much of a buffer of zeros is copied out at a time */
#define ZCHUNK (64u << 10)

ssize_t rec_read_mem(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (!addr)
		return -EFAULT;
	n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return -errno;
	return n;
}

ssize_t rec_read_str(pid_t tid, uint64_t addr, char *buf, size_t cap)
{
	size_t got = 0;

	if (!addr)
		return -EFAULT;
	/* Read up to each page boundary: the next page may be unmapped
	 * while the string itself is not. */
	while (got + 1 < cap) {
		size_t chunk = PAGE - ((addr + got) & (PAGE - 1));
		ssize_t n;
		char *z;

		if (chunk > cap - 1 - got)
			chunk = cap - 1 - got;
		n = rec_read_mem(tid, addr + got, buf + got, chunk);
		if (n <= 0)
			return got ? (ssize_t)got : (n < 0 ? n : -EFAULT);
		z = memchr(buf + got, 0, (size_t)n);
		if (z)
			return z - buf;
		got += (size_t)n;
	}
	buf[got] = 0;
	return (ssize_t)got;
}

ssize_t rec_read_sun_path(pid_t tid, uint64_t addr, uint64_t alen, char *buf,
			  size_t cap, int64_t *family)
{
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	struct sockaddr_un sa;
	size_t n = alen < sizeof(sa) ? (size_t)alen : sizeof(sa), l;

	*family = -1;
	if (!addr || n < sizeof(sa.sun_family))
		return -EFAULT;
	if (rec_read_mem(tid, addr, &sa, n) != (ssize_t)n)
		return -EFAULT;
	*family = sa.sun_family;
	/* the kernel takes sun_path up to its NUL or the address's end */
	if (sa.sun_family != AF_UNIX || n <= off || !sa.sun_path[0])
		return 0;
	l = strnlen(sa.sun_path, n - off);
	if (l >= cap)
		l = cap - 1;
	memcpy(buf, sa.sun_path, l);
	buf[l] = 0;
	return (ssize_t)l;
}

/* iot_msg_fds_read()'s peek: @ctx the tracee's tid */
static int tracee_peek(void *ctx, uint64_t addr, void *buf, size_t n)
{
	return rec_read_mem(*(pid_t *)ctx, addr, buf, n) == (ssize_t)n ? 0 : -1;
}

int rec_read_msg_fds(pid_t tid, uint64_t msg, int32_t *fds, int max)
{
	return iot_msg_fds_read(tracee_peek, &tid, msg, fds, max);
}

/* @n bytes at @addr of @tid are all zeros.  A short first look (64
 * bytes) settles most data for one small copy; only zeros are read on, in
 * ZCHUNK pieces.  Unreadable memory is "not zeros". */
static int zero_run(pid_t tid, uint64_t addr, uint64_t n, char *buf)
{
	uint64_t got = 0;

	while (got < n) {
		size_t k = got == 0 ? 64 : ZCHUNK;

		if (k > n - got)
			k = (size_t)(n - got);
		if (rec_read_mem(tid, addr + got, buf, k) != (ssize_t)k)
			return 0;
		if (buf[0] != 0 || (k > 1 && memcmp(buf, buf + 1, k - 1) != 0))
			return 0;
		got += k;
	}
	return 1;
}

/* As fp_zeros() in fastpath/preload.c, which makes the same test in the
 * program's own memory: the two must flag the same calls. */
int rec_wbuf_zero(pid_t tid, const struct iot_syscall *sc, const uint64_t *args)
{
	static __thread char buf[ZCHUNK];
	static __thread struct iovec iov[FP_ZERO_IOVS];
	int i = iot_syscall_wbuf(sc);
	uint64_t cnt, j;

	if (i < 0 || !args[i])
		return 0;
	if (sc->arg[i] == IOT_ARG_PTR)
		return args[i + 1] > 0 && args[i + 1] <= FP_ZERO_MAX &&
		       zero_run(tid, args[i], args[i + 1], buf);
	cnt = args[i + 1];
	if (cnt == 0 || cnt > FP_ZERO_IOVS ||
	    rec_read_mem(tid, args[i], iov, cnt * sizeof(iov[0])) != (ssize_t)(cnt * sizeof(iov[0])) ||
	    !fp_zero_iovs_fit(iov, cnt))
		return 0;
	for (j = 0; j < cnt; j++)
		if (iov[j].iov_len &&
		    !zero_run(tid, (uint64_t)(uintptr_t)iov[j].iov_base, iov[j].iov_len, buf))
			return 0;
	return 1;
}
