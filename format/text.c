/*
 * text.c - events as strace prints them:
 *   openat(AT_FDCWD, "/a/b", O_RDONLY|O_CLOEXEC) = 3
 *   unlink("/x") = -1 ENOENT (No such file or directory)
 * plus the bounded string builder and the errno names.  The per-kind
 * argument printers live in text_args.c.
 */
#include <asm/unistd_64.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "text_int.h"

/* ---- the string builder ---- */

void iot_sb_init(struct iot_sbuf *b, char *buf, size_t len)
{
	b->buf = buf;
	b->len = buf ? len : 0;
	b->pos = 0;
	if (b->len)
		buf[0] = '\0';
}

void iot_sb_putc(struct iot_sbuf *b, char c)
{
	if (b->pos + 1 < b->len)
		b->buf[b->pos] = c;
	b->pos++;
}

void iot_sb_puts(struct iot_sbuf *b, const char *s)
{
	while (*s)
		iot_sb_putc(b, *s++);
}

void iot_sb_printf(struct iot_sbuf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n, i;

	/* Only numbers and short names come through here: a small buffer
	 * keeps the truncation logic in one place (iot_sb_putc). */
	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	for (i = 0; i < n; i++)
		iot_sb_putc(b, tmp[i]);
}

int iot_sb_end(struct iot_sbuf *b)
{
	if (b->len)
		b->buf[b->pos < b->len ? b->pos : b->len - 1] = '\0';
	return b->pos > INT32_MAX ? INT32_MAX : (int)b->pos;
}

/* Length of the valid UTF-8 sequence at @s (at most @n bytes), or 0.
 * Overlong forms, surrogates and C1 controls count as invalid: they are
 * what would confuse a terminal or a reader. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need, i;

	if (c >= 0xc2 && c <= 0xdf)
		need = 1;
	else if (c >= 0xe0 && c <= 0xef)
		need = 2;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 3;
	else
		return 0;
	if (c == 0xc2)
		lo = 0xa0;		/* U+0080..U+009F: C1 controls */
	else if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (need >= n)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i <= need; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return need + 1;
}

/* The bytes of a string with the escapes of iot_sb_quote(), without the
 * quotes.  Bytes in @more are escaped too (in octal). */
static void sb_escape(struct iot_sbuf *b, const char *str, size_t n,
		      const char *more)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, k;

	while (i < n) {
		unsigned char c = s[i];

		switch (c) {
		case '"':  iot_sb_puts(b, "\\\""); i++; continue;
		case '\\': iot_sb_puts(b, "\\\\"); i++; continue;
		case '\t': iot_sb_puts(b, "\\t"); i++; continue;
		case '\n': iot_sb_puts(b, "\\n"); i++; continue;
		case '\r': iot_sb_puts(b, "\\r"); i++; continue;
		case '\v': iot_sb_puts(b, "\\v"); i++; continue;
		case '\f': iot_sb_puts(b, "\\f"); i++; continue;
		}
		if (c >= 0x20 && c < 0x7f && !strchr(more, c)) {
			iot_sb_putc(b, (char)c);
			i++;
			continue;
		}
		k = c >= 0x80 ? utf8_len(s + i, n - i) : 0;
		if (k) {
			while (k--)
				iot_sb_putc(b, (char)s[i++]);
			continue;
		}
		/* Three octal digits always, so a digit that follows
		 * cannot be read as part of the escape. */
		iot_sb_printf(b, "\\%03o", c);
		i++;
	}
}

void iot_sb_quote(struct iot_sbuf *b, const char *str, size_t n)
{
	iot_sb_putc(b, '"');
	sb_escape(b, str, n, "");
	iot_sb_putc(b, '"');
}

/* A descriptor with its path, as strace -y prints it: 3</a/b>.  The path
 * escapes '<' and '>' so that a file named "x>" cannot end it early. */
static void sb_fd_path(struct iot_sbuf *b, int64_t fd, const char *path,
		       uint32_t len)
{
	iot_sb_printf(b, "%d", (int32_t)fd);
	if (!path)
		return;
	iot_sb_putc(b, '<');
	sb_escape(b, path, len, "<>");
	iot_sb_putc(b, '>');
}

/* ---- errno names ---- */

struct errno_name {
	const char *name, *desc;
};

#define E(name, desc) [name] = { #name, desc },
/* Linux's errno values (glibc's descriptions); EWOULDBLOCK and EDEADLOCK
 * are aliases and print as EAGAIN and EDEADLK. */
static const struct errno_name errnos[] = {
	E(EPERM, "Operation not permitted")
	E(ENOENT, "No such file or directory")
	E(ESRCH, "No such process")
	E(EINTR, "Interrupted system call")
	E(EIO, "Input/output error")
	E(ENXIO, "No such device or address")
	E(E2BIG, "Argument list too long")
	E(ENOEXEC, "Exec format error")
	E(EBADF, "Bad file descriptor")
	E(ECHILD, "No child processes")
	E(EAGAIN, "Resource temporarily unavailable")
	E(ENOMEM, "Cannot allocate memory")
	E(EACCES, "Permission denied")
	E(EFAULT, "Bad address")
	E(ENOTBLK, "Block device required")
	E(EBUSY, "Device or resource busy")
	E(EEXIST, "File exists")
	E(EXDEV, "Invalid cross-device link")
	E(ENODEV, "No such device")
	E(ENOTDIR, "Not a directory")
	E(EISDIR, "Is a directory")
	E(EINVAL, "Invalid argument")
	E(ENFILE, "Too many open files in system")
	E(EMFILE, "Too many open files")
	E(ENOTTY, "Inappropriate ioctl for device")
	E(ETXTBSY, "Text file busy")
	E(EFBIG, "File too large")
	E(ENOSPC, "No space left on device")
	E(ESPIPE, "Illegal seek")
	E(EROFS, "Read-only file system")
	E(EMLINK, "Too many links")
	E(EPIPE, "Broken pipe")
	E(EDOM, "Numerical argument out of domain")
	E(ERANGE, "Numerical result out of range")
	E(EDEADLK, "Resource deadlock avoided")
	E(ENAMETOOLONG, "File name too long")
	E(ENOLCK, "No locks available")
	E(ENOSYS, "Function not implemented")
	E(ENOTEMPTY, "Directory not empty")
	E(ELOOP, "Too many levels of symbolic links")
	E(ENOMSG, "No message of desired type")
	E(EIDRM, "Identifier removed")
	E(ECHRNG, "Channel number out of range")
	E(EL2NSYNC, "Level 2 not synchronized")
	E(EL3HLT, "Level 3 halted")
	E(EL3RST, "Level 3 reset")
	E(ELNRNG, "Link number out of range")
	E(EUNATCH, "Protocol driver not attached")
	E(ENOCSI, "No CSI structure available")
	E(EL2HLT, "Level 2 halted")
	E(EBADE, "Invalid exchange")
	E(EBADR, "Invalid request descriptor")
	E(EXFULL, "Exchange full")
	E(ENOANO, "No anode")
	E(EBADRQC, "Invalid request code")
	E(EBADSLT, "Invalid slot")
	E(EBFONT, "Bad font file format")
	E(ENOSTR, "Device not a stream")
	E(ENODATA, "No data available")
	E(ETIME, "Timer expired")
	E(ENOSR, "Out of streams resources")
	E(ENONET, "Machine is not on the network")
	E(ENOPKG, "Package not installed")
	E(EREMOTE, "Object is remote")
	E(ENOLINK, "Link has been severed")
	E(EADV, "Advertise error")
	E(ESRMNT, "Srmount error")
	E(ECOMM, "Communication error on send")
	E(EPROTO, "Protocol error")
	E(EMULTIHOP, "Multihop attempted")
	E(EDOTDOT, "RFS specific error")
	E(EBADMSG, "Bad message")
	E(EOVERFLOW, "Value too large for defined data type")
	E(ENOTUNIQ, "Name not unique on network")
	E(EBADFD, "File descriptor in bad state")
	E(EREMCHG, "Remote address changed")
	E(ELIBACC, "Can not access a needed shared library")
	E(ELIBBAD, "Accessing a corrupted shared library")
	E(ELIBSCN, ".lib section in a.out corrupted")
	E(ELIBMAX, "Attempting to link in too many shared libraries")
	E(ELIBEXEC, "Cannot exec a shared library directly")
	E(EILSEQ, "Invalid or incomplete multibyte or wide character")
	E(ERESTART, "Interrupted system call should be restarted")
	E(ESTRPIPE, "Streams pipe error")
	E(EUSERS, "Too many users")
	E(ENOTSOCK, "Socket operation on non-socket")
	E(EDESTADDRREQ, "Destination address required")
	E(EMSGSIZE, "Message too long")
	E(EPROTOTYPE, "Protocol wrong type for socket")
	E(ENOPROTOOPT, "Protocol not available")
	E(EPROTONOSUPPORT, "Protocol not supported")
	E(ESOCKTNOSUPPORT, "Socket type not supported")
	E(EOPNOTSUPP, "Operation not supported")
	E(EPFNOSUPPORT, "Protocol family not supported")
	E(EAFNOSUPPORT, "Address family not supported by protocol")
	E(EADDRINUSE, "Address already in use")
	E(EADDRNOTAVAIL, "Cannot assign requested address")
	E(ENETDOWN, "Network is down")
	E(ENETUNREACH, "Network is unreachable")
	E(ENETRESET, "Network dropped connection on reset")
	E(ECONNABORTED, "Software caused connection abort")
	E(ECONNRESET, "Connection reset by peer")
	E(ENOBUFS, "No buffer space available")
	E(EISCONN, "Transport endpoint is already connected")
	E(ENOTCONN, "Transport endpoint is not connected")
	E(ESHUTDOWN, "Cannot send after transport endpoint shutdown")
	E(ETOOMANYREFS, "Too many references: cannot splice")
	E(ETIMEDOUT, "Connection timed out")
	E(ECONNREFUSED, "Connection refused")
	E(EHOSTDOWN, "Host is down")
	E(EHOSTUNREACH, "No route to host")
	E(EALREADY, "Operation already in progress")
	E(EINPROGRESS, "Operation now in progress")
	E(ESTALE, "Stale file handle")
	E(EUCLEAN, "Structure needs cleaning")
	E(ENOTNAM, "Not a XENIX named type file")
	E(ENAVAIL, "No XENIX semaphores available")
	E(EISNAM, "Is a named type file")
	E(EREMOTEIO, "Remote I/O error")
	E(EDQUOT, "Disk quota exceeded")
	E(ENOMEDIUM, "No medium found")
	E(EMEDIUMTYPE, "Wrong medium type")
	E(ECANCELED, "Operation canceled")
	E(ENOKEY, "Required key not available")
	E(EKEYEXPIRED, "Key has expired")
	E(EKEYREVOKED, "Key has been revoked")
	E(EKEYREJECTED, "Key was rejected by service")
	E(EOWNERDEAD, "Owner died")
	E(ENOTRECOVERABLE, "State not recoverable")
	E(ERFKILL, "Operation not possible due to RF-kill")
	E(EHWPOISON, "Memory page has hardware error")
};
#undef E

/* Kernel-internal values a tracer can see at syscall exit when a signal
 * interrupts a call (include/linux/errno.h). */
static const struct errno_name kernel_errnos[] = {
	[0] = { "ERESTARTSYS", "To be restarted if SA_RESTART is set" },
	[1] = { "ERESTARTNOINTR", "To be restarted" },
	[2] = { "ERESTARTNOHAND", "To be restarted if no handler" },
	[3] = { "ENOIOCTLCMD", "No ioctl command" },
	[4] = { "ERESTART_RESTARTBLOCK", "Interrupted by signal" },
	[5] = { "EPROBE_DEFER", "Driver requests probe retry" },
	[6] = { "EOPENSTALE", "Open found a stale dentry" },
	[7] = { "ENOPARAM", "Parameter not supported" },
	[9] = { "EBADHANDLE", "Illegal NFS file handle" },
	[10] = { "ENOTSYNC", "Update synchronization mismatch" },
	[11] = { "EBADCOOKIE", "Cookie is stale" },
	[12] = { "ENOTSUPP", "Operation is not supported" },
	[13] = { "ETOOSMALL", "Buffer or request is too small" },
	[14] = { "ESERVERFAULT", "An untranslatable error occurred" },
	[15] = { "EBADTYPE", "Type not supported by server" },
	[16] = { "EJUKEBOX", "Request initiated, but will not complete before timeout" },
	[17] = { "EIOCBQUEUED", "iocb queued, will get completion event" },
	[18] = { "ERECALLCONFLICT", "Conflict with recalled state" },
};
#define KERNEL_ERRNO_BASE 512

static const struct errno_name *errno_entry(int err)
{
	const struct errno_name *e = NULL;

	if (err > 0 && (size_t)err < sizeof(errnos) / sizeof(errnos[0]))
		e = &errnos[err];
	else if (err >= KERNEL_ERRNO_BASE &&
		 (size_t)(err - KERNEL_ERRNO_BASE) <
		 sizeof(kernel_errnos) / sizeof(kernel_errnos[0]))
		e = &kernel_errnos[err - KERNEL_ERRNO_BASE];
	return e && e->name ? e : NULL;
}

const char *iot_errno_name(int err)
{
	const struct errno_name *e = errno_entry(err);

	return e ? e->name : NULL;
}

static const char *errno_desc(int err)
{
	const struct errno_name *e = errno_entry(err);

	return e ? e->desc : NULL;
}

/* ---- events ---- */

/* fcntl commands whose third argument (or return value) reads specially. */
#define FC_DUPFD 0
#define FC_GETFD 1
#define FC_SETFD 2
#define FC_GETFL 3
#define FC_SETFL 4
#define FC_GETLK 5
#define FC_SETLK 6
#define FC_SETLKW 7
#define FC_GETOWN 9
#define FC_GETSIG 11
#define FC_SETOWN_EX 15
#define FC_GETOWN_EX 16
#define FC_GETOWNER_UIDS 17
#define FC_OFD_GETLK 36
#define FC_OFD_SETLK 37
#define FC_OFD_SETLKW 38
#define FC_GETLEASE 1025
#define FC_GETPIPE_SZ 1032
#define FC_GET_SEALS 1034
#define FC_GET_RW_HINT 1035
#define FC_SET_FILE_RW_HINT 1038

#define IOCTL_FICLONE 0x40049409u

static int fcntl_has_arg(uint32_t cmd)
{
	switch (cmd) {
	case FC_GETFD: case FC_GETFL: case FC_GETOWN: case FC_GETSIG:
	case FC_GETLEASE: case FC_GETPIPE_SZ: case FC_GET_SEALS:
		return 0;
	}
	return 1;
}

/* fcntl's third argument: a descriptor, flags, a lock (its struct, kept
 * since 2026-12-05: iot_fcntl_lock()) or a pointer to a struct (not kept),
 * depending on the command. */
static void sb_fcntl_arg(struct iot_sbuf *b, uint32_t cmd, int64_t v,
			 const struct iot_event *ev)
{
	if (iot_fcntl_lock(cmd) && ev->nargs >= IOT_FLOCK_NARGS) {
		iot_sb_flock(b, ev->args[IOT_FLOCK_TYPE], ev->args[IOT_FLOCK_START],
			     ev->args[IOT_FLOCK_LEN]);
		return;
	}
	switch (cmd) {
	case FC_SETFD:
		if (v == 1)
			iot_sb_puts(b, "FD_CLOEXEC");
		else
			iot_sb_arg(b, IOT_ARG_HEX, v, NULL);
		break;
	case FC_SETFL:
		iot_sb_open_flags(b, (uint64_t)v, 1);
		break;
	case FC_GETLK: case FC_SETLK: case FC_SETLKW:
	case FC_OFD_GETLK: case FC_OFD_SETLK: case FC_OFD_SETLKW:
	case FC_SETOWN_EX: case FC_GETOWN_EX: case FC_GETOWNER_UIDS:
		iot_sb_arg(b, IOT_ARG_PTR, v, NULL);
		break;
	default:
		if (iot_fcntl_hint(cmd) && ev->nargs >= IOT_HINT_NARGS &&
		    ev->args[IOT_HINT_VALUE] != -1) {
			/* kept since 2026-12-08: strace's "[RWH_WRITE_LIFE_SHORT]" */
			static const char *const life[] = { "NOT_SET", "NONE", "SHORT",
							    "MEDIUM", "LONG", "EXTREME" };
			uint64_t h = (uint64_t)ev->args[IOT_HINT_VALUE];

			if (h < sizeof(life) / sizeof(life[0]))
				iot_sb_printf(b, "[RWH_WRITE_LIFE_%s]", life[h]);
			else
				iot_sb_printf(b, "[%#llx]", (unsigned long long)h);
		} else if (cmd >= FC_GET_RW_HINT && cmd <= FC_SET_FILE_RW_HINT)
			iot_sb_arg(b, IOT_ARG_PTR, v, NULL);
		else
			iot_sb_printf(b, "%d", (int32_t)v);
		break;
	}
}

static int64_t arg_of(const struct iot_event *ev, unsigned i)
{
	return i < ev->nargs && i < IOT_MAX_ARGS ? ev->args[i] : 0;
}

static int opens_with_mode(uint64_t flags)
{
	return (flags & (IOT_O_CREAT | IOT_O_TMPFILE)) != 0;
}

/* Which string the recorder stored for the descriptor argument @i of
 * @sc (record/decode.c): the first FD argument's path goes to the event's
 * path unless the call has a PATH argument of its own, the second's to
 * path2 unless it has a PATH2 or STR2.  @return : the string or NULL. */
static const char *fd_arg_path(const struct iot_syscall *sc,
			       const struct iot_event *ev, unsigned i,
			       uint32_t *len)
{
	unsigned j, nth = 0;
	int own_path = 0, own_path2 = 0;

	for (j = 0; j < sc->nargs && j < IOT_MAX_ARGS; j++) {
		if (sc->arg[j] == IOT_ARG_PATH || sc->arg[j] == IOT_ARG_SOCKADDR)
			own_path = 1;
		else if (sc->arg[j] == IOT_ARG_PATH2 || sc->arg[j] == IOT_ARG_STR2)
			own_path2 = 1;
		else if (sc->arg[j] == IOT_ARG_FD && j < i)
			nth++;
	}
	if (nth == 0 && !own_path) {
		*len = ev->path_len;
		return ev->path;
	}
	if (nth == 1 && !own_path2) {
		*len = ev->path2_len;
		return ev->path2;
	}
	return NULL;
}

static void sb_args(struct iot_sbuf *b, const struct iot_syscall *sc,
		    const struct iot_event *ev, unsigned flags)
{
	uint64_t oflags = 0;
	int have_oflags = 0, sep = 0;
	unsigned i;

	for (i = 0; i < sc->nargs && i < IOT_MAX_ARGS; i++) {
		int kind = sc->arg[i];
		int64_t v = arg_of(ev, i);

		/* open's mode is noise unless the call may create. */
		if (kind == IOT_ARG_MODE && have_oflags && !opens_with_mode(oflags))
			continue;
		if (sc->nr == __NR_fcntl && i == 2 &&
		    !fcntl_has_arg((uint32_t)arg_of(ev, 1)))
			continue;
		if (sc->nr == __NR_openat2 && kind == IOT_ARG_MODE)
			continue;	/* printed inside the open_how */
		if (sep)
			iot_sb_puts(b, ", ");
		sep = 1;
		if (kind == IOT_ARG_OPENHOW) {
			oflags = (uint64_t)v;
			have_oflags = 1;
			iot_sb_puts(b, "{flags=");
			iot_sb_open_flags(b, oflags, 1);
			if (opens_with_mode(oflags) && i + 1 < sc->nargs &&
			    sc->arg[i + 1] == IOT_ARG_MODE) {
				iot_sb_puts(b, ", mode=");
				iot_sb_mode(b, (uint64_t)arg_of(ev, i + 1));
			}
			if (sc->nr == __NR_openat2 && arg_of(ev, IOT_OPENAT2_RESOLVE)) {
				iot_sb_puts(b, ", resolve=");
				iot_sb_resolve(b, (uint64_t)arg_of(ev, IOT_OPENAT2_RESOLVE));
			}
			iot_sb_putc(b, '}');
		} else if (kind == IOT_ARG_OPEN_FLAGS && iot_syscall_arg(sc, IOT_ARG_PATH) >= 0) {
			oflags = (uint64_t)v;
			have_oflags = 1;
			iot_sb_arg(b, kind, v, ev);
		} else if (kind == IOT_ARG_OPEN_FLAGS) {
			/* dup3, pipe2: only O_CLOEXEC and friends. */
			iot_sb_open_flags(b, (uint64_t)v, 0);
		} else if (kind == IOT_ARG_FDPAIR && ev->ret < 0) {
			iot_sb_arg(b, IOT_ARG_PTR, 0, ev);	/* never filled */
		} else if (sc->nr == __NR_fcntl && i == 2) {
			sb_fcntl_arg(b, (uint32_t)arg_of(ev, 1), v, ev);
		} else if (sc->nr == __NR_ioctl && i == 2 &&
			   iot_ioctl_flags((uint32_t)arg_of(ev, 1)) &&
			   ev->nargs > IOT_IOCTL_FLAGS && ev->args[IOT_IOCTL_FLAGS] >= 0) {
			/* kept since 2026-12-07: strace's "[0x20]",
			 * "{fsx_xflags=0x10, ...}" */
			iot_sb_printf(b, (uint32_t)arg_of(ev, 1) == IOT_FS_IOC_SETFLAGS ?
				      "[%#llx]" : "{fsx_xflags=%#llx, ...}",
				      (unsigned long long)ev->args[IOT_IOCTL_FLAGS]);
		} else if (sc->nr == __NR_munmap && i == 0) {
			/* kept since 2026-12-06; 0 before (a pointer not
			 * kept): "..." as for one */
			iot_sb_arg(b, IOT_ARG_PTR, v, ev);
		} else if (sc->nr == __NR_ioctl && i == 2 &&
			   iot_subvol_call((uint32_t)arg_of(ev, 1), NULL, NULL) &&
			   ev->nargs >= IOT_SUBVOL_NARGS && ev->args[IOT_SUBVOL_FLAGS] >= 0) {
			/* kept since 2026-12-08: strace's struct, the name
			 * the last of the event's path */
			const char *nm = ev->path ? ev->path : "";
			uint32_t n = ev->path ? ev->path_len : 0, k = n;

			while (k > 0 && nm[k - 1] != '/')
				k--;
			if (ev->args[IOT_SUBVOL_SRC_FD] >= 0)
				iot_sb_printf(b, "{fd=%d, ", (int32_t)ev->args[IOT_SUBVOL_SRC_FD]);
			else
				iot_sb_putc(b, '{');
			iot_sb_printf(b, "flags=%#llx, name=",
				      (unsigned long long)ev->args[IOT_SUBVOL_FLAGS]);
			iot_sb_quote(b, nm + k, n - k);
			iot_sb_putc(b, '}');
		} else if (sc->nr == __NR_ioctl && i == 2 &&
			   (uint32_t)arg_of(ev, 1) == IOT_FICLONERANGE &&
			   ev->nargs >= IOT_CLONE_NARGS && ev->args[IOT_CLONE_SRC_FD] >= 0) {
			/* kept since 2026-12-08: strace's struct */
			iot_sb_printf(b, "{src_fd=%d, src_offset=%llu, src_length=%llu, "
				      "dest_offset=%llu}", (int32_t)ev->args[IOT_CLONE_SRC_FD],
				      (unsigned long long)ev->args[IOT_CLONE_SRC_OFF],
				      (unsigned long long)ev->args[IOT_CLONE_LEN],
				      (unsigned long long)ev->args[IOT_CLONE_DEST]);
		} else if (sc->nr == __NR_ioctl && i == 2 &&
			   (uint32_t)arg_of(ev, 1) == IOCTL_FICLONE) {
			iot_sb_printf(b, "%d", (int32_t)v);	/* the source fd */
		} else if (kind == IOT_ARG_FD && (flags & IOT_FMT_FD_PATHS)) {
			const char *p;
			uint32_t plen = 0;

			p = fd_arg_path(sc, ev, i, &plen);
			sb_fd_path(b, v, p, plen);
		} else {
			iot_sb_arg(b, kind, v, ev);
		}
	}
}

static void sb_ret(struct iot_sbuf *b, const struct iot_syscall *sc,
		   const struct iot_event *ev, unsigned flags)
{
	int64_t r = ev->ret;
	const char *name, *desc;

	if (r < 0 && r >= -4095) {
		name = iot_errno_name((int)-r);
		desc = errno_desc((int)-r);
		if (name)
			iot_sb_printf(b, "-1 %s (%s)", name, desc);
		else
			iot_sb_printf(b, "-1 (errno %d)", (int)-r);
		return;
	}
	if (!sc) {
		iot_sb_printf(b, "%lld", (long long)r);
	} else if (sc->nr == __NR_mmap || sc->nr == __NR_mremap) {
		iot_sb_printf(b, "%#llx", (unsigned long long)r);
	} else if (sc->nr == __NR_umask) {
		iot_sb_printf(b, "%03llo", (unsigned long long)r);	/* the mask before */
	} else if (sc->nr == __NR_fcntl &&
		   (uint32_t)arg_of(ev, 1) == FC_GETFD) {
		iot_sb_printf(b, "%#llx (flags ", (unsigned long long)r);
		if (r == 1)
			iot_sb_puts(b, "FD_CLOEXEC");
		else
			iot_sb_arg(b, IOT_ARG_HEX, r, NULL);
		iot_sb_putc(b, ')');
	} else if (sc->nr == __NR_fcntl &&
		   (uint32_t)arg_of(ev, 1) == FC_GETFL) {
		iot_sb_printf(b, "%#llx (flags ", (unsigned long long)r);
		iot_sb_open_flags(b, (uint64_t)r, 1);
		iot_sb_putc(b, ')');
	} else if ((flags & IOT_FMT_FD_PATHS) && (sc->flags & IOT_SCF_RETFD)) {
		/* open's path is the file opened, dup's the descriptor
		 * duplicated: the new descriptor names the same file */
		sb_fd_path(b, r, ev->path, ev->path_len);
	} else {
		iot_sb_printf(b, "%lld", (long long)r);
	}
}

int iot_format_event(char *buf, size_t len, const struct iot_event *ev)
{
	return iot_format_event_opts(buf, len, ev, 0);
}

int iot_format_event_opts(char *buf, size_t len, const struct iot_event *ev,
			  unsigned flags)
{
	const struct iot_syscall *sc = iot_syscall_by_nr(ev->nr);
	struct iot_sbuf b;
	unsigned i;

	iot_sb_init(&b, buf, len);
	if (sc) {
		iot_sb_puts(&b, sc->name);
		iot_sb_putc(&b, '(');
		sb_args(&b, sc, ev, flags);
	} else {
		/* Not in this build's table (a newer recorder): raw. */
		iot_sb_printf(&b, "syscall_%d(", (int)ev->nr);
		for (i = 0; i < ev->nargs && i < IOT_MAX_ARGS; i++) {
			if (i)
				iot_sb_puts(&b, ", ");
			iot_sb_arg(&b, IOT_ARG_HEX, ev->args[i], NULL);
		}
	}
	if (ev->flags & IOT_EV_UNFINISHED) {
		if (sc && (sc->nr == __NR_exit || sc->nr == __NR_exit_group)) {
			/* These never return: strace's "= ?". */
			iot_sb_puts(&b, ") = ?");
		} else {
			iot_sb_puts(&b, " <unfinished ...>)");
		}
		return iot_sb_end(&b);
	}
	iot_sb_puts(&b, ") = ");
	sb_ret(&b, sc, ev, flags);
	return iot_sb_end(&b);
}

int iot_format_str(char *buf, size_t len, const char *s, size_t n)
{
	struct iot_sbuf b;

	iot_sb_init(&b, buf, len);
	iot_sb_quote(&b, s ? s : "", s ? n : 0);
	return iot_sb_end(&b);
}
