/*
 * lock.h - what the lock test programs (lock_downgrade, lock_flip,
 * lock_letgo, lock_owner, lock_procs, lock_waiting) share: a record lock
 * call on a byte range.
 */
#ifndef IOT_PROGS_LOCK_H
#define IOT_PROGS_LOCK_H

#include <fcntl.h>

/* fcntl(@fd, @cmd) (F_SETLK, F_SETLKW, F_OFD_*) of a lock of @type on
 * bytes [@start, @start + @len) (@len 0: to the end): fcntl's return */
static inline int lk(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };

	return fcntl(fd, cmd, &fl);
}

#endif
