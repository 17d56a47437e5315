/*
 * aio.c - names and text of asynchronous requests (AsyncOp records):
 * libaio's IOCB_CMD_* and io_uring's IORING_OP_* opcodes.
 *
 * The numbers are the kernel ABI, written out here as text_args.c does:
 * a trace recorded on a newer kernel must read the same on an older one,
 * whose headers may lack the newer opcodes.
 */
#include <string.h>

#include "hash.h"
#include "text_int.h"

static const char *const libaio_ops[] = {
	[0] = "pread", [1] = "pwrite", [2] = "fsync", [3] = "fdsync",
	[4] = "poll", [5] = "noop", [7] = "preadv", [8] = "pwritev",
};

static const char *const uring_ops[] = {
	"nop", "readv", "writev", "fsync", "read_fixed", "write_fixed",
	"poll_add", "poll_remove", "sync_file_range", "sendmsg", "recvmsg",
	"timeout", "timeout_remove", "accept", "async_cancel", "link_timeout",
	"connect", "fallocate", "openat", "close", "files_update", "statx",
	"read", "write", "fadvise", "madvise", "send", "recv", "openat2",
	"epoll_ctl", "splice", "provide_buffers", "remove_buffers", "tee",
	"shutdown", "renameat", "unlinkat", "mkdirat", "symlinkat", "linkat",
	"msg_ring", "fsetxattr", "setxattr", "fgetxattr", "getxattr", "socket",
	"uring_cmd", "send_zc", "sendmsg_zc",
};

#define N(t) (sizeof(t) / sizeof((t)[0]))

const char *iot_aio_op_name(uint32_t api, uint32_t opcode)
{
	if (api == IOT_AIO_LIBAIO && opcode < N(libaio_ops))
		return libaio_ops[opcode];
	if (api == IOT_AIO_URING && opcode < N(uring_ops))
		return uring_ops[opcode];
	return NULL;
}

unsigned iot_aio_op_dir(uint32_t api, uint32_t opcode)
{
	const char *n = iot_aio_op_name(api, opcode);

	if (!n)
		return 0;
	if (strncmp(n, "read", 4) == 0 || strncmp(n, "pread", 5) == 0)
		return IOT_SCF_READ;
	if (strncmp(n, "write", 5) == 0 || strncmp(n, "pwrite", 6) == 0 ||
	    strcmp(n, "fallocate") == 0)
		return IOT_SCF_WRITE;
	return 0;
}

uint64_t iot_aio_key(const struct iot_aio *a)
{
	const uint64_t v[5] = { a->api, (uint32_t)a->pid, a->ctx, a->user_data, a->id };
	uint64_t h = iot_hash(v, sizeof(v), 0x61696f);

	return h ? h : 1;
}

int iot_aio_op_known(uint32_t api, uint32_t opcode)
{
	/* libaio: pread pwrite fsync fdsync noop preadv pwritev */
	static const uint64_t libaio = 0x1afULL;
	/* io_uring: nop readv writev fsync read_fixed write_fixed fallocate
	 * openat close statx read write renameat unlinkat mkdirat */
	static const uint64_t uring = (1ULL << 0) | (1ULL << 1) | (1ULL << 2) |
		(1ULL << 3) | (1ULL << 4) | (1ULL << 5) | (1ULL << 17) |
		(1ULL << 18) | (1ULL << 19) | (1ULL << 21) | (1ULL << 22) |
		(1ULL << 23) | (1ULL << 35) | (1ULL << 36) | (1ULL << 37);

	if (opcode >= 64)
		return 0;
	return ((api == IOT_AIO_LIBAIO ? libaio : api == IOT_AIO_URING ? uring : 0) >>
		opcode) & 1;
}

static void sb_fd(struct iot_sbuf *b, const struct iot_aio *a)
{
	/* IOSQE_FIXED_FILE: the index of a registered file */
	if (a->api == IOT_AIO_URING && (a->flags & 1))
		iot_sb_printf(b, "fixed:%d", a->fd);
	else
		iot_sb_printf(b, "%d", a->fd);
	if (a->path) {
		iot_sb_putc(b, '<');
		iot_sb_quote(b, a->path, a->path_len);
		iot_sb_putc(b, '>');
	}
}

/* io_uring's requests that name a path (openat, statx, renameat,
 * unlinkat, mkdirat): its fd is a directory, len a mode or mask */
static int path_op(const struct iot_aio *a)
{
	return a->api == IOT_AIO_URING && (a->opcode == 18 || a->opcode == 21 ||
					   (a->opcode >= 35 && a->opcode <= 37));
}

static void sb_submit(struct iot_sbuf *b, const struct iot_aio *a)
{
	const char *n = iot_aio_op_name(a->api, a->opcode);
	uint32_t i;

	if (n)
		iot_sb_printf(b, "submit %s(", n);
	else
		iot_sb_printf(b, "submit op%u(", a->opcode);
	if (path_op(a) && a->path) {
		iot_sb_quote(b, a->path, a->path_len);
		if (a->path2) {
			iot_sb_puts(b, ", ");
			iot_sb_quote(b, a->path2, a->path2_len);
		}
		if (a->opcode == 18 || a->opcode == 37)
			iot_sb_printf(b, ", 0%llo", (unsigned long long)a->len);
		else if (a->opcode == 21)
			iot_sb_printf(b, ", mask=%#llx", (unsigned long long)a->len);
		iot_sb_putc(b, ')');
		if (a->rw_flags)
			iot_sb_printf(b, " flags=%#x", a->rw_flags);
		iot_sb_printf(b, " data=%#llx", (unsigned long long)a->user_data);
		return;
	}
	sb_fd(b, a);
	if (a->path2) {
		iot_sb_puts(b, ", ");
		iot_sb_quote(b, a->path2, a->path2_len);
	}
	iot_sb_printf(b, ", %llu, %llu", (unsigned long long)a->len,
		      (unsigned long long)a->off);
	if (a->nvals) {
		iot_sb_puts(b, ", [");
		for (i = 0; i < a->nvals && i < 8; i++)
			iot_sb_printf(b, "%s%lld", i ? ", " : "", (long long)a->vals[i]);
		iot_sb_puts(b, i < a->nvals ? ", ...]" : "]");
	}
	iot_sb_putc(b, ')');
	if (a->flags)
		iot_sb_printf(b, " flags=%#x", a->flags);
	if (a->rw_flags)
		iot_sb_printf(b, " rw_flags=%#x", a->rw_flags);
	if (a->buf_index)
		iot_sb_printf(b, " buf=%u", a->buf_index);
	if (a->resfd >= 0)
		iot_sb_printf(b, " resfd=%d", a->resfd);
	iot_sb_printf(b, " data=%#llx", (unsigned long long)a->user_data);
	if (a->data_len)
		iot_sb_printf(b, " [data %u]", a->data_len);
}

int iot_format_aio(char *buf, size_t len, const struct iot_aio *a)
{
	struct iot_sbuf b;
	const char *api = a->api == IOT_AIO_URING ? "io_uring" : "aio";
	uint32_t i;

	iot_sb_init(&b, buf, len);
	iot_sb_printf(&b, "%s ", api);
	switch (a->kind) {
	case IOT_AIO_SUBMIT:
		sb_submit(&b, a);
		break;
	case IOT_AIO_COMPLETE:
		iot_sb_puts(&b, "complete ");
		if (a->fd >= 0 || a->path) {
			const char *n = iot_aio_op_name(a->api, a->opcode);

			if (n)
				iot_sb_printf(&b, "%s(", n);
			else
				iot_sb_printf(&b, "op%u(", a->opcode);
			if (path_op(a) && a->path)
				iot_sb_quote(&b, a->path, a->path_len);
			else
				sb_fd(&b, a);
			iot_sb_puts(&b, ") ");
		}
		iot_sb_printf(&b, "data=%#llx = ", (unsigned long long)a->user_data);
		if (a->res < 0 && a->res > -4096 && iot_errno_name((int)-a->res))
			iot_sb_printf(&b, "-1 %s", iot_errno_name((int)-a->res));
		else
			iot_sb_printf(&b, "%lld", (long long)a->res);
		break;
	case IOT_AIO_SETUP:
		iot_sb_printf(&b, "setup ctx=%#llx entries=%llu", (unsigned long long)a->ctx,
			      (unsigned long long)a->len);
		if (a->api == IOT_AIO_URING)
			iot_sb_printf(&b, " cq_entries=%lld flags=%#x", (long long)a->res,
				      a->flags);
		break;
	case IOT_AIO_REGISTER:
		iot_sb_printf(&b, "register %s [", a->opcode == 0 ? "buffers" :
			      a->opcode == 2 ? "files" : a->opcode == 4 ? "eventfd" :
			      a->opcode == 7 ? "eventfd_async" : a->opcode == 20 ? "ring_fds" :
			      a->opcode == 21 ? "ring_fds off" : "?");
		for (i = 0; i < a->nvals && i < 16; i++)
			iot_sb_printf(&b, "%s%lld", i ? ", " : "", (long long)a->vals[i]);
		iot_sb_puts(&b, i < a->nvals ? ", ...]" : "]");
		break;
	case IOT_AIO_CQ_READY:
		iot_sb_printf(&b, "ready ctx=%#llx: %llu completions in the ring, not yet "
			      "reaped", (unsigned long long)a->ctx, (unsigned long long)a->len);
		break;
	case IOT_AIO_END:
		iot_sb_printf(&b, "end ctx=%#llx: the kernel took %llu requests, %lld "
			      "in the trace", (unsigned long long)a->ctx,
			      (unsigned long long)a->len, (long long)a->res);
		break;
	default:
		iot_sb_printf(&b, "kind%u", a->kind);
		break;
	}
	return iot_sb_end(&b);
}

static uint64_t run_pages(const uint64_t *runs, uint32_t n)
{
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		sum += runs[2 * i + 1];
	return sum;
}

int iot_format_mpages(char *buf, size_t len, const struct iot_mpages *m)
{
	static const char *const why[] = { "?", "munmap", "msync", "exit", "mremap" };
	struct iot_sbuf b;

	iot_sb_init(&b, buf, len);
	iot_sb_puts(&b, "mmap pages ");
	if (m->path)
		iot_sb_quote(&b, m->path, m->path_len);
	else
		iot_sb_puts(&b, "?");
	iot_sb_printf(&b, " at %s: read %llu (%u runs), written ", why[m->why < 5 ? m->why : 0],
		      (unsigned long long)run_pages(m->read_runs, m->n_read), m->n_read);
	if (m->flags & IOT_MP_NO_DIRTY)
		iot_sb_puts(&b, "unknown");
	else
		iot_sb_printf(&b, "%llu (%u runs)%s",
			      (unsigned long long)run_pages(m->write_runs, m->n_write), m->n_write,
			      m->flags & IOT_MP_TOUCHED ? " or read (a tmpfs file's)" : "");
	iot_sb_printf(&b, ", pages of %u bytes", m->page_size);
	return iot_sb_end(&b);
}
