/*
 * tracee_mem.c - strings and structs read from the tracee's memory.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "rec.h"

#define PAGE 4096UL

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
