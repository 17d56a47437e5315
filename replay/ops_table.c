/*
 * ops_table.c - which handler replays which syscall: the families
 * (ops_file.c, ops_io.c, ops_meta.c, ops_xattr.c, ops_dir.c, ops_proc.c,
 * aio.c, uring.c, ops_wait.c, creds.c) fill one table by syscall number, once.  The executor
 * (exec_thread.c) reads rpl_handlers[] directly after rpl_handler_for() has
 * filled it, so the lookup per op is one load.  Handlers share their
 * helpers through ops_common.c, not through the executor.
 */
#include <pthread.h>

#include "rpl.h"

rpl_handler rpl_handlers[RPL_MAX_NR];
static pthread_once_t handlers_once = PTHREAD_ONCE_INIT;

static void init_handlers(void)
{
	rpl_ops_file(rpl_handlers);
	rpl_ops_io(rpl_handlers);
	rpl_ops_meta(rpl_handlers);
	rpl_ops_xattr(rpl_handlers);
	rpl_ops_dir(rpl_handlers);
	rpl_ops_proc(rpl_handlers);
	rpl_ops_aio(rpl_handlers);
	rpl_ops_uring(rpl_handlers);
	rpl_ops_wait(rpl_handlers);
	rpl_ops_creds(rpl_handlers);
	rpl_ops_umask(rpl_handlers);
	rpl_ops_sock(rpl_handlers);
	/* the write buffer is filled here too, before any timed op */
	rpl_wbuf();
}

rpl_handler rpl_handler_for(int nr)
{
	pthread_once(&handlers_once, init_handlers);
	return nr >= 0 && nr < RPL_MAX_NR ? rpl_handlers[nr] : NULL;
}
