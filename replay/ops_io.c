/*
 * ops_io.c - replay handlers that move data or touch a file through a
 * descriptor: read/write families, seek, size, sync, copy, clone, mmap.
 *
 * Reads ask for the byte count the recorded call *returned* (what it
 * really moved), or the requested count when it returned 0 or failed, so
 * an EOF probe stays an EOF probe.  Writes send the program's own bytes
 * where the trace kept them (`record --data`), zeros where the program
 * wrote zeros (IOT_EV_ZERO), else that many deterministic bytes.  One call
 * is replayed by one call: transfers beyond the scratch buffer use an
 * iovec that repeats it, up to RPL_IO_MAX, and one beyond that by as
 * many such calls as it takes (do_io_all()).  A copy that a
 * clone made unnecessary on this filesystem is not replayed (h_ioctl()).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <string.h>
#include <unistd.h>

#include "rpl.h"

/* the op's own call, timed (RPL_CALL) */
#define ret_of(call) RPL_CALL(c, call)

/* The kernel's most for one read or write (MAX_RW_COUNT) */
#define RW_COUNT_MAX 0x7ffff000LL

/* The byte count to replay: what the call moved, else what it asked. */
static int64_t io_count(const struct rpl_op *op, int64_t asked)
{
	int64_t n = op->ev.ret > 0 ? op->ev.ret : asked;

	if (n < 0)
		n = 0;
	return n > RW_COUNT_MAX ? RW_COUNT_MAX : n;
}

static int64_t do_io(struct rpl_ctx *c, const struct rpl_op *op, int fd, int64_t n,
		     int64_t off, int pos, int wr, int flags)
{
	struct iovec iov[RPL_IO_MAX / RPL_SCRATCH];
	char *buf = wr ? (char *)rpl_wbuf_of(op) : c->scratch;
	const void *data = wr ? rpl_op_data(c->p, op) : NULL;
	int cnt = 0;

	/* the program's own bytes (record --data): as many as it wrote */
	if (data && n == op->ev.ret) {
		int64_t s0 = c->sys0, r;

		do {
			iov[0].iov_base = (void *)data;
			iov[0].iov_len = (size_t)n;
			r = flags ? ret_of(pwritev2(fd, iov, 1, pos ? off : -1, flags)) :
			    ret_of(pos ? pwrite(fd, data, (size_t)n, off) : write(fd, data, (size_t)n));
			/* O_DIRECT asks for an aligned buffer, which the
			 * trace's bytes seldom are: the same bytes again from
			 * the page-aligned scratch, timed alone */
			if (r != -EINVAL || !((uintptr_t)data & 4095) || n > RPL_SCRATCH)
				return r;
			memcpy(c->scratch, data, (size_t)n);
			data = c->scratch;
			c->sys0 = s0;
		} while (1);
	}
	if (n <= RPL_SCRATCH && !flags) {
		if (wr)
			return ret_of(pos ? pwrite(fd, buf, (size_t)n, off) : write(fd, buf, (size_t)n));
		return ret_of(pos ? pread(fd, buf, (size_t)n, off) : read(fd, buf, (size_t)n));
	}
	while (n > 0 && cnt < (int)(sizeof(iov) / sizeof(iov[0]))) {
		iov[cnt].iov_base = buf;
		iov[cnt].iov_len = n < RPL_SCRATCH ? (size_t)n : RPL_SCRATCH;
		n -= (int64_t)iov[cnt].iov_len;
		cnt++;
	}
	if (!pos)
		off = -1;
	if (wr)
		return ret_of(pwritev2(fd, iov, cnt, off, flags));
	return ret_of(preadv2(fd, iov, cnt, off, flags));
}

/* do_io() of @n bytes, RPL_IO_MAX at a time: a read of 600 MiB in one
 * call (zstd --patch-from's dictionary) was replayed as 256 MiB, and the
 * file position and size after it differed.  @return : the bytes moved,
 * or the first call's error. */
static int64_t do_io_all(struct rpl_ctx *c, const struct rpl_op *op, int fd, int64_t n,
			 int64_t off, int pos, int wr, int flags)
{
	int64_t done = 0, k, r;

	if (n <= RPL_IO_MAX)
		return do_io(c, op, fd, n, off, pos, wr, flags);
	do {
		k = n - done > RPL_IO_MAX ? RPL_IO_MAX : n - done;
		r = do_io(c, op, fd, k, off + done, pos, wr, flags);
		if (r <= 0)
			return done ? done : r;
		done += r;
	} while (r == k && done < n);
	return done;
}

/*
 * A read through O_DIRECT that met the end of the file moved fewer bytes
 * than it asked, a count the device's block size seldom divides: asked
 * for that count, the kernel refuses it (EINVAL).  RocksDB with
 * use_direct_reads on xfs reads each table whole with a count rounded up
 * to 512 bytes (206336 for 205969 there): 128-131 mismatches a replay on
 * xfs, none on tmpfs, which takes any count.  Such a read is made again
 * with the count it asked, which the end of the file cuts as it did; the
 * refused try's time is not the call's.  Any other result stands.
 */
static int64_t io_direct_short(struct rpl_ctx *c, const struct rpl_op *op, int fd,
			       int64_t r, int64_t n, int64_t asked, int64_t off,
			       int pos, int flags)
{
	int fl;

	if (r != -EINVAL || op->ev.ret < 0 || n >= asked ||
	    (fl = fcntl(fd, F_GETFL)) < 0 || !(fl & O_DIRECT))
		return r;
	c->sys0 = 0;
	return do_io_all(c, op, fd, asked > RW_COUNT_MAX ? RW_COUNT_MAX : asked, off, pos, 0, flags);
}

/* do_io_all() of a read family's call that asked @asked bytes */
static int64_t rd_io(struct rpl_ctx *c, const struct rpl_op *op, int fd, int64_t asked,
		     int64_t off, int pos, int flags)
{
	int64_t n = io_count(op, asked);

	return io_direct_short(c, op, fd, do_io_all(c, op, fd, n, off, pos, 0, flags),
			       n, asked, off, pos, flags);
}

/* @op of the read or the write family on live descriptor @fd */
static int64_t rw(struct rpl_ctx *c, struct rpl_op *op, int fd, int marks, int wr)
{
	const int64_t *a = op->ev.args;

	/* a pipe moves what it moved when recorded: ops_pipe.c */
	if (rpl_pipe_nothing(op))
		return op->ev.ret;
	if (wr)
		rpl_pipe_gone_first(c, op);
	/* An eventfd's write adds its value to the counter: one, as a
	 * thread pool's wake-up does (libuv's), not 8 bytes of the replay's
	 * own, whose value the next write overflowed (EAGAIN: 6-12 of
	 * npm's 219 writes); its read waits for the count, as a pipe's
	 * does */
	if ((marks & RPL_FD_EVENTFD) && (op->ev.nr == SYS_write || op->ev.nr == SYS_read) &&
	    a[2] >= 8)
		return rpl_eventfd_rw(c, op, fd, wr);
	switch (op->ev.nr) {
	case SYS_read: case SYS_write:
		return rpl_pipe_rest(c, op, fd, wr ? do_io_all(c, op, fd, io_count(op, a[2]), 0, 0, wr, 0) :
					 rd_io(c, op, fd, a[2], 0, 0, 0), wr);
	case SYS_sendto: case SYS_recvfrom:
		return rpl_send_recv(c, op, fd, wr);
	case SYS_pread64: case SYS_pwrite64:
		if (!wr)
			return rd_io(c, op, fd, a[2], a[3], 1, 0);
		return do_io_all(c, op, fd, io_count(op, a[2]), a[3], 1, wr, 0);
	case SYS_readv: case SYS_writev:
		return rpl_pipe_rest(c, op, fd, wr ? do_io_all(c, op, fd, io_count(op, a[1]), 0, 0, wr, 0) :
					 rd_io(c, op, fd, a[1], 0, 0, 0), wr);
	case SYS_preadv: case SYS_pwritev:
		if (!wr)
			return rd_io(c, op, fd, a[1], a[3], 1, 0);
		return do_io_all(c, op, fd, io_count(op, a[1]), a[3], 1, wr, 0);
	default:		/* preadv2, pwritev2: offset -1 = the file position */
		if (a[3] == -1)
			return rpl_pipe_rest(c, op, fd, wr ? do_io_all(c, op, fd, io_count(op, a[1]), 0, 0,
								       wr, (int)a[5]) :
						 rd_io(c, op, fd, a[1], 0, 0, (int)a[5]), wr);
		if (!wr)
			return rd_io(c, op, fd, a[1], a[3], 1, (int)a[5]);
		return do_io_all(c, op, fd, io_count(op, a[1]), a[3], 1, wr, (int)a[5]);
	}
}

/* The read and the write families, one handler: they differ only in the
 * direction of do_io() (the row of syscalls.def says which). */
static int64_t h_rw(struct rpl_ctx *c, struct rpl_op *op)
{
	int marks = 0;
	int fd = rpl_live_fd_marks(c, op, op->ev.args[0], &marks);
	const struct iot_syscall *sc = iot_syscall_by_nr(op->ev.nr);
	int wr = sc && (sc->flags & IOT_SCF_WRITE);
	int64_t r;
	int rd;

	if (fd < 0)
		return RPL_SKIPPED;
	if (marks & (wr ? RPL_FD_CLONE_DST : RPL_FD_CLONE_SRC))
		return rpl_skip(op, RPL_SKIP_CLONED);
	if (!(op->rflags & RPL_OPF_LATE_READER))
		return rw(c, op, fd, marks, wr);
	/* its pipe's last reader was still closing when recorded
	 * (plan_pipes.c rpl_reader_gone()): a read end of its own, which
	 * leaves the pipe as the exit did once closed */
	rd = rpl_pipe_reader(fd);
	r = rw(c, op, fd, marks, wr);
	if (rd >= 0)
		close(rd);
	return r;
}

static int64_t h_lseek(struct rpl_ctx *c, struct rpl_op *op)
{
	int fd = rpl_live_fd(c, op, op->ev.args[0]);

	if (fd < 0)
		return RPL_SKIPPED;
	return ret_of(lseek(fd, (off_t)op->ev.args[1], (int)op->ev.args[2]));
}

static int64_t h_truncate(struct rpl_ctx *c, struct rpl_op *op)
{
	const char *path = rpl_op_path(c, op, op->ev.path);
	int fd;
	int64_t r;

	if (!path)
		return RPL_SKIPPED;
	fd = rpl_open_at(c, path, O_WRONLY | O_NONBLOCK | O_NOCTTY, 0);
	if (fd < 0)
		return fd;
	r = ret_of(ftruncate(fd, (off_t)op->ev.args[1]));
	close(fd);
	return r;
}

/* [@off, @off+@len) of @fd zeros: a hole punched, else zeros written */
static void zero_range(struct rpl_ctx *c, int fd, off_t off, off_t len)
{
	if (len <= 0 ||
	    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len) == 0)
		return;
	memset(c->scratch, 0, RPL_SCRATCH);
	while (len > 0) {
		size_t n = len < RPL_SCRATCH ? (size_t)len : RPL_SCRATCH;

		if (pwrite(fd, c->scratch, n, off) != (ssize_t)n)
			return;
		off += (off_t)n;
		len -= (off_t)n;
	}
}

/*
 * A fallocate that worked when recorded and that this filesystem refuses
 * (EOPNOTSUPP: tmpfs has no collapse, insert nor zero range; btrfs no
 * collapse nor insert): its effect made with the file's bytes, as a
 * program without it would move them, so that the file has the size and
 * data the program's next calls found (xfs_io fcollapse, then cat: its
 * reads found a file 64 KiB shorter when recorded, and counted as
 * mismatches where the replay left it whole).  The call stays a
 * capability probe; the time of the moves is in it.
 */
static void falloc_emulate(struct rpl_ctx *c, int fd, int mode, off_t off, off_t len)
{
	struct stat st;
	off_t size, end;

	if (fstat(fd, &st) < 0 || off < 0 || len <= 0)
		return;
	size = st.st_size;
	if (mode & FALLOC_FL_COLLAPSE_RANGE) {
		if (off + len > size)
			return;
		/* down, from the front: a later part is read before it is
		 * written over */
		for (end = off + len; end < size;) {
			ssize_t n = pread(fd, c->scratch, size - end < RPL_SCRATCH ?
					  (size_t)(size - end) : RPL_SCRATCH, end);

			if (n <= 0 || pwrite(fd, c->scratch, (size_t)n, end - len) != n)
				return;
			end += n;
		}
		if (ftruncate(fd, size - len) < 0)
			return;
	} else if (mode & FALLOC_FL_INSERT_RANGE) {
		if (off >= size || ftruncate(fd, size + len) < 0)
			return;
		/* up, from the back */
		for (end = size; end > off;) {
			size_t n = end - off < RPL_SCRATCH ? (size_t)(end - off) : RPL_SCRATCH;

			if (pread(fd, c->scratch, n, end - (off_t)n) != (ssize_t)n ||
			    pwrite(fd, c->scratch, n, end - (off_t)n + len) != (ssize_t)n)
				return;
			end -= (off_t)n;
		}
		zero_range(c, fd, off, len);
	} else if (mode & FALLOC_FL_ZERO_RANGE) {
		zero_range(c, fd, off, (off + len < size ? off + len : size) - off);
		if (!(mode & FALLOC_FL_KEEP_SIZE) && off + len > size && ftruncate(fd, off + len) < 0)
			return;
	}
}

static int64_t h_fd_simple(struct rpl_ctx *c, struct rpl_op *op)
{
	const int64_t *a = op->ev.args;
	int fd = rpl_live_fd(c, op, a[0]);
	int e;

	if (fd < 0)
		return RPL_SKIPPED;
	switch (op->ev.nr) {
	case SYS_ftruncate:
		return ret_of(ftruncate(fd, (off_t)a[1]));
	case SYS_fallocate:
		e = fallocate(fd, (int)a[1], (off_t)a[2], (off_t)a[3]) < 0 ? -errno : 0;
		if (e == -EOPNOTSUPP && op->ev.ret == 0)
			falloc_emulate(c, fd, (int)a[1], (off_t)a[2], (off_t)a[3]);
		return e;
	case SYS_fadvise64:
		e = posix_fadvise(fd, (off_t)a[1], (off_t)a[2], (int)a[3]);
		return -e;
	case SYS_readahead:
		return ret_of(readahead(fd, (off_t)a[1], (size_t)a[2]));
	case SYS_fsync:
		return ret_of(fsync(fd));
	case SYS_fdatasync:
		return ret_of(fdatasync(fd));
	case SYS_syncfs:
		return ret_of(syncfs(fd));
	case SYS_sync_file_range:
		return ret_of(sync_file_range(fd, (off_t)a[1], (off_t)a[2], (unsigned)a[3]));
	}
	return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
}

/* sync(2) would flush every filesystem of the machine; the workload's
 * sync is replayed as a sync of the filesystem under test.  That is what
 * the profile should time: the rest of the machine's dirty data (other
 * jobs, the replayer's own output) is not the workload's.  Both wait for
 * the same thing on the target, down to a loop image's backing file (the
 * flush at the journal commit makes the loop driver fsync it): after two
 * cp -a of a 240 MB tree on ext4, sync took 0.70-0.86 s, syncfs of that
 * filesystem 0.78-0.91 s, the same within the run-to-run spread. */
static int64_t h_sync(struct rpl_ctx *c, struct rpl_op *op)
{
	int fd;
	int64_t r;

	/* the root is held O_PATH, which syncfs() refuses (EBADF); opened
	 * for reading as root, whoever the thread is (creds.c) */
	rpl_creds_root(c);
	fd = openat(c->p->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rpl_creds_apply(c);
	if (fd < 0)
		return -errno;
	r = ret_of(syncfs(fd));
	close(fd);
	return r;
}

/* The live descriptor of recorded @fd, or -1 (the op not marked) */
static int live_of(struct rpl_ctx *c, int64_t fd)
{
	struct rpl_fd e;

	return fd >= 0 && fd < RPL_FD_MAX && rpl_fdtab_get(c->pr->tab, (long)fd, &e) == 0 &&
	       e.state == RPL_FD_LIVE ? e.live : -1;
}

/*
 * A splice with one end not replayed (/dev/null, /dev/zero, a socket)
 * and the other a pipe: what it did to the pipe, which the pipe's other
 * users see.  From the pipe: its bytes taken out (read into the scratch
 * buffer); into it: bytes put there.  Left undone, a pipe a program
 * drained into /dev/null filled up, its writer's writes failed with
 * EAGAIN, and a tee of it copied old bytes (stress-ng's tee stressor: a
 * replay of 0.5 s of recording not done in 60 s).  @return : as a
 * handler's; -1 with neither end live (the op marked skipped).
 */
static int64_t splice_pipe_side(struct rpl_ctx *c, struct rpl_op *op, int in, int out)
{
	size_t left = op->ev.ret > 0 ? (size_t)op->ev.ret : 0, done = 0;
	int fd = in >= 0 ? in : out;
	struct stat sb;

	if ((in < 0) == (out < 0) || fstat(fd, &sb) < 0 || !S_ISFIFO(sb.st_mode) || !left) {
		/* marks it skipped, with the reason */
		if (rpl_live_fd(c, op, op->ev.args[0]) >= 0)
			rpl_live_fd(c, op, op->ev.args[2]);
		return RPL_SKIPPED;
	}
	c->sys0 = iot_now_ns();
	while (done < left) {
		size_t n = left - done < RPL_SCRATCH ? left - done : RPL_SCRATCH;
		ssize_t r = in >= 0 ? read(in, c->scratch, n) : write(out, rpl_wbuf(), n);

		if (r <= 0) {
			c->sys1 = iot_now_ns();
			return done ? (int64_t)done : r < 0 ? -errno : 0;
		}
		done += (size_t)r;
	}
	c->sys1 = iot_now_ns();
	return (int64_t)done;
}

static int64_t h_copy(struct rpl_ctx *c, struct rpl_op *op)
{
	const int64_t *a = op->ev.args;
	loff_t o1, o2;
	int in, out, marks = 0;
	int64_t r;
	size_t n;

	switch (op->ev.nr) {
	case SYS_copy_file_range:	/* in, off_in, out, off_out, len, flags */
		in = rpl_live_fd(c, op, a[0]);
		out = in < 0 ? -1 : rpl_live_fd_marks(c, op, a[2], &marks);
		if (out < 0)
			return RPL_SKIPPED;
		if (marks & RPL_FD_CLONE_DST)
			return rpl_skip(op, RPL_SKIP_CLONED);
		/* Between two filesystems when recorded (cat or cp of a file
		 * from / into a tmpfs): EXDEV, and the program copied with
		 * read and write instead, which the trace holds next.  Under
		 * the root both are on one filesystem, where the copy would
		 * work, move both offsets and leave the reads that follow at
		 * the end of the file (and the file twice as long): as a
		 * native run there, whose source stays on another
		 * filesystem, it is not made. */
		if (op->ev.ret == -EXDEV)
			return rpl_skip(op, RPL_SKIP_XDEV);
		o1 = a[1];
		o2 = a[3];
		return ret_of(copy_file_range(in, a[1] == -1 ? NULL : &o1, out,
					      a[3] == -1 ? NULL : &o2,
					      (size_t)io_count(op, a[4]), (unsigned)a[5]));
	case SYS_sendfile:		/* out, in, off, count */
		out = rpl_live_fd_marks(c, op, a[0], &marks);
		in = out < 0 ? -1 : rpl_live_fd(c, op, a[1]);
		if (in < 0)
			return RPL_SKIPPED;
		if (marks & RPL_FD_CLONE_DST)
			return rpl_skip(op, RPL_SKIP_CLONED);
		o1 = a[2];
		n = (size_t)io_count(op, a[3]);
		r = ret_of(sendfile(out, in, a[2] == -1 ? NULL : &o1, n));
		if ((r == -EAGAIN || (r > 0 && r < op->ev.ret)) && op->ev.ret > 0)
			r = rpl_sendfile_rest(c, op, out, in, a[2] == -1 ? NULL : &o1, n, r);
		/* end of its input into a full pipe: the kernel asks for room
		 * before it reads, and the call waited for it (busybox cat);
		 * here the pipe does not block (EAGAIN) */
		if (r == -EAGAIN && op->ev.ret == 0) {
			struct pollfd pfd = { .fd = out, .events = POLLOUT };
			int64_t deadline = 0;

			while (r == -EAGAIN && rpl_wait_again(c, op, &pfd, &deadline))
				r = ret_of(sendfile(out, in, a[2] == -1 ? NULL : &o1, n));
		}
		return r;
	case SYS_splice:		/* in, off_in, out, off_out, len, flags */
		in = live_of(c, a[0]);
		out = live_of(c, a[2]);
		if (in < 0 || out < 0)
			return splice_pipe_side(c, op, in, out);
		return rpl_pipe_move(c, op, in, out, (size_t)io_count(op, a[4]));
	case SYS_tee:			/* in, out, len, flags */
		in = rpl_live_fd(c, op, a[0]);
		out = in < 0 ? -1 : rpl_live_fd(c, op, a[1]);
		if (out < 0)
			return RPL_SKIPPED;
		return rpl_pipe_move(c, op, in, out, (size_t)io_count(op, a[2]));
	}
	return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
}

int rpl_copy_range(struct rpl_ctx *c, int in, int out, loff_t soff, loff_t doff, uint64_t len)
{
	uint64_t left = len ? len : UINT64_MAX;
	ssize_t n = 0;

	while (left > 0 && (n = copy_file_range(in, &soff, out, &doff,
						left < RPL_IO_MAX ? (size_t)left : RPL_IO_MAX,
						0)) > 0)
		left -= (uint64_t)n;
	if (n == 0 || left == 0)
		return 0;
	while (left > 0 && (n = pread(in, c->scratch, left < RPL_SCRATCH ? (size_t)left :
				      RPL_SCRATCH, soff)) > 0) {
		if (pwrite(out, c->scratch, (size_t)n, doff) != n)
			return -EIO;
		soff += n;
		doff += n;
		left -= (uint64_t)n;
	}
	return n < 0 ? -errno : 0;
}

/*
 * FICLONERANGE, with the struct the recorder kept in the arguments
 * (iotape.h: IOT_CLONE_*); a trace from before has only its pointer:
 * not replayed.  Not replayed, a clone into a new or shorter file left
 * it empty or short, and what read it next found less (xfs_io's reflink
 * of 1 MiB, then cat: 24 reads of 131072 bytes gave 0).  A clone that
 * worked when recorded and fails here is followed by the copy of the
 * range, as FICLONE's is by the whole file's: the file then has the
 * size and data the program's next calls found.
 */
static int64_t clone_range(struct rpl_ctx *c, struct rpl_op *op)
{
	struct file_clone_range r;
	int fd, src;
	int64_t ret;

	if (op->ev.nargs < IOT_CLONE_NARGS || op->ev.args[IOT_CLONE_SRC_FD] < 0)
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	fd = rpl_live_fd(c, op, op->ev.args[0]);
	src = fd < 0 ? -1 : rpl_live_fd(c, op, op->ev.args[IOT_CLONE_SRC_FD]);
	if (src < 0)
		return RPL_SKIPPED;
	memset(&r, 0, sizeof(r));
	r.src_fd = src;
	r.src_offset = (uint64_t)op->ev.args[IOT_CLONE_SRC_OFF];
	r.src_length = (uint64_t)op->ev.args[IOT_CLONE_LEN];
	r.dest_offset = (uint64_t)op->ev.args[IOT_CLONE_DEST];
	ret = ret_of(ioctl(fd, FICLONERANGE, &r));
	if (ret < 0 && op->ev.ret == 0)
		rpl_copy_range(c, src, fd, (loff_t)r.src_offset, (loff_t)r.dest_offset,
			       r.src_length);
	return ret;
}

/*
 * A terminal's questions asked of a file or pipe (isatty(), the window's
 * size, the foreground group: ls, python's open(), every shell) found
 * none: recorded ENOTTY, they are asked again of the replay's descriptor,
 * which is no terminal either (2,367 such calls in 33 workloads were left
 * out as unsupported).  Asked of a terminal, they were the program's
 * talk with it, not I/O: left out.
 */
static int is_tty_question(unsigned long req)
{
	return req == TCGETS || req == TIOCGWINSZ || req == TIOCGPGRP;
}

/*
 * A device's questions asked of an image file (mkfs.*, e2fsck, tune2fs,
 * resize2fs, debugfs, mtools: BLKGETSIZE64, BLKSSZGET, BLKFLSBUF, the
 * floppy's FDGETPRM, HDIO_GETGEO; tar's MTIOCTOP of its archive) that it
 * refused (ENOTTY): no filesystem answers these for a regular file, so
 * they are asked again of the replay's descriptor, which refuses them
 * too, never of a device (26 of e2fsprogs' calls on a 64 MiB image, 20
 * of five mkfs and their checkers, 4 of tar's were left out as
 * unsupported).  The buffer is zeros as long as the request says, at
 * least a page: the older requests (BLKGETSIZE, HDIO_GETGEO) say none.
 */
static int is_device_question(unsigned long req)
{
	switch (_IOC_TYPE(req)) {
	case 0x02:	/* floppy: FDGETPRM */
	case 0x03:	/* HDIO_GETGEO */
	case 0x12:	/* block devices: BLK* */
	case 0x4c:	/* loop devices */
	case 0x6d:	/* tapes: MTIOCTOP, MTIOCGET */
		return 1;
	}
	return 0;
}

static int64_t device_question(struct rpl_ctx *c, struct rpl_op *op, unsigned long req)
{
	int fd = rpl_live_fd(c, op, op->ev.args[0]);
	struct stat st;

	if (fd < 0)
		return RPL_SKIPPED;
	if (fstat(fd, &st) < 0 || S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode) ||
	    _IOC_SIZE(req) > RPL_SCRATCH)
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	memset(c->scratch, 0, _IOC_SIZE(req) > 4096 ? _IOC_SIZE(req) : 4096);
	return RPL_CALL(c, ioctl(fd, req, c->scratch));
}

/*
 * FS_IOC_FIEMAP: where a file's data lies on the disk, a question whose
 * cost is the filesystem's (its extent tree; man-db's mandb asks it of
 * each page it indexes, 24,994 times, to read them in disk order).  The
 * request's struct is not in the trace: asked here for the file's first
 * extent, as that caller does (from 0, one extent at most).  Its answer
 * is the filesystem's (a row PROBE: one that differs is no mismatch).
 */
static int64_t fiemap(struct rpl_ctx *c, struct rpl_op *op)
{
	union { struct fiemap m; char b[sizeof(struct fiemap) + sizeof(struct fiemap_extent)]; } u;
	int fd = rpl_live_fd(c, op, op->ev.args[0]);
	int64_t r;

	if (fd < 0)
		return RPL_SKIPPED;
	memset(&u, 0, sizeof(u));
	u.m.fm_length = FIEMAP_MAX_OFFSET;
	u.m.fm_extent_count = 1;
	r = RPL_CALL(c, ioctl(fd, FS_IOC_FIEMAP, &u.m));
	return r >= 0 ? op->ev.ret : r;
}

/* chattr's attribute flags (FS_IOC_SETFLAGS; FS_IOC_FSSETXATTR's
 * fsx_xflags, the rest of its struct as the replay's file has it): set
 * on the replay's file, since they refuse what the program was refused
 * after them (an append-only file's open for writing without O_APPEND,
 * its truncate, rename or unlink: EPERM).  The flags behind the pointer
 * are in the event's fourth argument; a trace from before has none: not
 * replayed.  The flags stay on the file after the replay, as on the
 * program's. */
static int64_t set_flags(struct rpl_ctx *c, struct rpl_op *op)
{
	int64_t v = op->ev.nargs > IOT_IOCTL_FLAGS ? op->ev.args[IOT_IOCTL_FLAGS] : -1;
	struct fsxattr fa;
	int fd, flags;

	if (v < 0 || v > UINT32_MAX)
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	fd = rpl_live_fd(c, op, op->ev.args[0]);
	if (fd < 0)
		return RPL_SKIPPED;
	if ((uint32_t)op->ev.args[1] == IOT_FS_IOC_SETFLAGS) {
		flags = (int)(uint32_t)v;
		return RPL_CALL(c, ioctl(fd, FS_IOC_SETFLAGS, &flags));
	}
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fa) < 0)
		return -errno;
	fa.fsx_xflags = (uint32_t)v;
	return RPL_CALL(c, ioctl(fd, FS_IOC_FSSETXATTR, &fa));
}

/*
 * FICLONE is replayed with the mapped source descriptor, FICLONERANGE
 * with the struct the trace keeps (clone_range()); other requests'
 * arguments are not recorded.
 *
 * Whether a clone works depends on the filesystem, and the program acts
 * on the answer: cp (--reflink=auto, the default since coreutils 9)
 * copies the data only if the clone failed.  Replaying the recorded copy
 * after a clone that worked here would time a copy the program never
 * makes on this filesystem (cp -a of a tree on btrfs: 15-80 % slow), so
 * both descriptors are marked and the copy between them is not replayed
 * (RPL_SKIP_CLONED: writes to the clone, reads of its source, until they
 * are closed).  The other way round, a clone that worked when recorded
 * but fails here is followed by the whole-file copy the program would
 * then make, timed in this call.
 */
static int64_t h_ioctl(struct rpl_ctx *c, struct rpl_op *op)
{
	unsigned long req = (unsigned long)op->ev.args[1];
	int fd, src;
	int64_t r;

	if (is_tty_question(req) && op->ev.ret == -ENOTTY) {
		uint64_t buf[32] = { 0 };	/* a struct termios, winsize, pid_t */

		fd = rpl_live_fd(c, op, op->ev.args[0]);
		return fd < 0 ? RPL_SKIPPED : RPL_CALL(c, ioctl(fd, req, buf));
	}
	if (req == FIONREAD || req == FS_IOC_GETFLAGS || req == FS_IOC_FSGETXATTR ||
	    req == FIGETBSZ) {
		/* questions of the file or pipe, whose answers go behind a
		 * pointer: asked again of the replay's descriptor (lsattr,
		 * a pipe's reader asking what is there, filefrag's block
		 * size) */
		uint64_t buf[8] = { 0 };	/* an int, a struct fsxattr */

		fd = rpl_live_fd(c, op, op->ev.args[0]);
		if (fd < 0)
			return RPL_SKIPPED;
		r = RPL_CALL(c, ioctl(fd, req, buf));
		return r >= 0 && op->ev.ret >= 0 ? op->ev.ret : r;
	}
	if (req == (unsigned long)FS_IOC_FIEMAP)
		return fiemap(c, op);
	if (req == FIONBIO) {
		/* non-blocking on or off (fdfind -x sets its children's
		 * output pipes so: 22,854 calls left out as unsupported);
		 * the replay's descriptors stay non-blocking whatever the
		 * program asks, as its F_SETFL keeps O_NONBLOCK (ops_file.c),
		 * so the value behind the pointer, not recorded, is moot */
		int on = 1;

		fd = rpl_live_fd(c, op, op->ev.args[0]);
		return fd < 0 ? RPL_SKIPPED : RPL_CALL(c, ioctl(fd, FIONBIO, &on));
	}
	if (req == FIOCLEX || req == FIONCLEX) {
		/* close-on-exec, as fcntl(F_SETFD) sets it (Python's
		 * subprocess asks so: 20 calls in a meson build left out as
		 * unsupported) */
		if (rpl_live_fd(c, op, op->ev.args[0]) < 0)
			return RPL_SKIPPED;
		rpl_fdtab_set_cloexec(c->pr->tab, (long)op->ev.args[0], req == FIOCLEX);
		return op->ev.ret < 0 ? op->ev.ret : 0;
	}
	if (iot_ioctl_flags((uint32_t)req))
		return set_flags(c, op);
	if ((uint32_t)req == IOT_FICLONERANGE)
		return clone_range(c, op);
	if (iot_subvol_call((uint32_t)req, NULL, NULL))
		return rpl_subvol(c, op);
	if (is_device_question(req) && op->ev.ret == -ENOTTY)
		return device_question(c, op, req);
	/* a request on a descriptor the replay does not have (a device's:
	 * stdio asks whether /dev/urandom is a terminal, EINVAL, 3 calls of
	 * redis-server) could not be made whatever it is: counted with the
	 * descriptor's other calls, not as unsupported */
	if (req != (unsigned long)FICLONE && rpl_live_fd(c, op, op->ev.args[0]) < 0)
		return RPL_SKIPPED;
	if (req != (unsigned long)FICLONE)
		return rpl_skip(op, RPL_SKIP_UNSUPPORTED);
	fd = rpl_live_fd(c, op, op->ev.args[0]);
	src = fd < 0 ? -1 : rpl_live_fd(c, op, op->ev.args[2]);
	if (src < 0)
		return RPL_SKIPPED;
	r = ret_of(ioctl(fd, FICLONE, src));
	if (r == 0 && op->ev.ret < 0) {
		rpl_fdtab_mark(c->pr->tab, (long)op->ev.args[0], RPL_FD_CLONE_DST);
		rpl_fdtab_mark(c->pr->tab, (long)op->ev.args[2], RPL_FD_CLONE_SRC);
	} else if (r < 0 && op->ev.ret == 0) {
		rpl_copy_range(c, src, fd, 0, 0, 0);
	}
	return r;
}

/* The calls themselves are not made; the pages touched through a
 * mapping are replayed at its munmap, msync or exit (mpages.c). */
static int64_t h_mmap(struct rpl_ctx *c, struct rpl_op *op)
{
	return rpl_mpages_mmap(c, op);
}

void rpl_ops_io(rpl_handler *h)
{
	h[SYS_read] = h_rw;
	h[SYS_pread64] = h_rw;
	h[SYS_readv] = h_rw;
	h[SYS_preadv] = h_rw;
	h[SYS_preadv2] = h_rw;
	h[SYS_write] = h_rw;
	h[SYS_pwrite64] = h_rw;
	h[SYS_writev] = h_rw;
	h[SYS_pwritev] = h_rw;
	h[SYS_sendto] = h_rw;
	h[SYS_recvfrom] = h_rw;
	h[SYS_pwritev2] = h_rw;
	h[SYS_lseek] = h_lseek;
	h[SYS_truncate] = h_truncate;
	h[SYS_ftruncate] = h_fd_simple;
	h[SYS_fallocate] = h_fd_simple;
	h[SYS_fadvise64] = h_fd_simple;
	h[SYS_readahead] = h_fd_simple;
	h[SYS_fsync] = h_fd_simple;
	h[SYS_fdatasync] = h_fd_simple;
	h[SYS_syncfs] = h_fd_simple;
	h[SYS_sync_file_range] = h_fd_simple;
	h[SYS_sync] = h_sync;
	h[SYS_copy_file_range] = h_copy;
	h[SYS_sendfile] = h_copy;
	h[SYS_splice] = h_copy;
	h[SYS_tee] = h_copy;
	h[SYS_vmsplice] = rpl_vmsplice;
	h[SYS_ioctl] = h_ioctl;
	h[SYS_mmap] = h_mmap;
	h[SYS_munmap] = h_mmap;
	h[SYS_mremap] = h_mmap;
	h[SYS_msync] = h_mmap;
}
