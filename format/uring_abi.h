/*
 * uring_abi.h - io_uring values of the kernel ABI that older kernel and
 * liburing headers lack, for the recorder (record/aio.c, record/uring.c)
 * and the replayer (replay/uring.c).  One copy, so that both read a
 * recorded call's flags the same way, whatever headers each was built
 * against.  The values are the kernel's (include/uapi/linux/io_uring.h);
 * a header that has them wins.
 *
 * Include it after <linux/io_uring.h> or <liburing.h>: the #ifndef only
 * works if the header that may define these came first.  tests/progs
 * keep their own copies, so that a test program builds alone.
 */
#ifndef IOT_URING_ABI_H
#define IOT_URING_ABI_H

#ifndef IORING_SETUP_NO_MMAP
#define IORING_SETUP_NO_MMAP (1U << 14)		/* Linux 6.5 */
#endif
#ifndef IORING_SETUP_NO_SQARRAY
#define IORING_SETUP_NO_SQARRAY (1U << 16)	/* Linux 6.6 */
#endif
#ifndef IORING_ENTER_REGISTERED_RING
#define IORING_ENTER_REGISTERED_RING (1U << 4)	/* Linux 5.18 */
#endif

/* IORING_REGISTER_USE_REGISTERED_RING (Linux 6.3): a member of an enum,
 * not a macro, so no #ifndef can tell whether the headers have it. */
#define IOT_URING_REG_USE_RING (1U << 31)

#endif
