/*
 * test_replay_fault.c - which results are faults of the filesystem under
 * test (replay/fault.c), how they are counted, and the text a stopped
 * replay's profile is marked with.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "rpl.h"

static void test_kinds(void **state)
{
	struct rpl_op op;
	int k, n = 0;

	(void)state;
	memset(&op, 0, sizeof(op));
	op.ev.nr = SYS_write;
	op.ev.path = "/a/b";		/* (its descriptor's file) */
	for (k = 0; k < RPL_FAULT_KINDS; k++) {
		assert_int_equal(rpl_fault_kind(-rpl_fault_errno(k)), k);
		assert_int_equal(rpl_fault_of(&op, -rpl_fault_errno(k)), k);
		n++;
	}
	assert_int_equal(n, 6);
	assert_int_equal(rpl_fault_kind(-ENOENT), -1);
	assert_int_equal(rpl_fault_kind(-EXDEV), -1);
	assert_int_equal(rpl_fault_kind(0), -1);
	assert_int_equal(rpl_fault_kind(4096), -1);
	/* a value too large for one file's xattrs is no full filesystem */
	op.ev.nr = SYS_fsetxattr;
	assert_int_equal(rpl_fault_of(&op, -ENOSPC), -1);
	assert_true(rpl_fault_of(&op, -EIO) >= 0);
}

/* ENOTCONN from a socket (a send or a write on a descriptor the trace
 * names no file for: a connect that gave up) is no filesystem's fault;
 * from a file (a FUSE daemon gone), from a path, or from an async
 * request's call, it is.  The first stopped a replay of socat's forking
 * server as if the filesystem had gone away (exit 5), until 2026-12-07. */
static void socket_notconn(void **state)
{
	static const int sock_calls[] = { SYS_sendto, SYS_recvfrom, SYS_sendmsg, SYS_recvmsg,
					  SYS_write, SYS_read, SYS_writev, SYS_shutdown,
					  SYS_accept4 };
	int k = rpl_fault_kind(-ENOTCONN);
	struct rpl_op op;
	size_t i;

	(void)state;
	assert_true(k >= 0);
	for (i = 0; i < sizeof(sock_calls) / sizeof(sock_calls[0]); i++) {
		memset(&op, 0, sizeof(op));
		op.ev.nr = (int16_t)sock_calls[i];
		op.ev.args[0] = 3;
		assert_int_equal(rpl_fault_of(&op, -ENOTCONN), -1);
		/* (only ENOTCONN is told apart) */
		assert_int_equal(rpl_fault_of(&op, -EIO), rpl_fault_kind(-EIO));
	}
	memset(&op, 0, sizeof(op));
	op.ev.nr = SYS_write;
	op.ev.path = "/fuse/f";
	assert_int_equal(rpl_fault_of(&op, -ENOTCONN), k);
	op.ev.nr = SYS_openat;
	assert_int_equal(rpl_fault_of(&op, -ENOTCONN), k);
	op.ev.nr = SYS_connect;	/* its look-up of the name */
	assert_int_equal(rpl_fault_of(&op, -ENOTCONN), k);
	op.ev.path = NULL;
	op.ev.nr = SYS_io_uring_enter;
	assert_int_equal(rpl_fault_of(&op, -ENOTCONN), k);
}

static void test_counts(void **state)
{
	static struct rpl_result res;
	char buf[128];

	(void)state;
	memset(&res, 0, sizeof(res));
	res.target_faults = 1234;
	res.target_by[rpl_fault_kind(-ENOSPC)] = 1200;
	res.target_by[rpl_fault_kind(-EIO)] = 34;
	rpl_fault_counts(&res, buf, sizeof(buf));
	assert_string_equal(buf, "1234 (ENOSPC 1200, EIO 34)");
	memset(&res, 0, sizeof(res));
	rpl_fault_counts(&res, buf, sizeof(buf));
	assert_string_equal(buf, "0");
}

/* The first fault of a plan of 10 ops, the 5th a write to fd 3. */
static void test_first(void **state)
{
	struct rpl_opts o = { .cmd = "test", .root = "/nonexistent" };
	static struct rpl_result res;
	struct rpl_op ops[10];
	struct rpl_proc pr;
	struct rpl_plan p;
	struct rpl_ctx c;
	int i;

	(void)state;
	memset(&p, 0, sizeof(p));
	memset(ops, 0, sizeof(ops));
	memset(&pr, 0, sizeof(pr));
	for (i = 0; i < 10; i++) {
		ops[i].ev.nr = SYS_write;
		ops[i].ev.t_enter = 1000000000LL + i * 250000000LL;
		ops[i].ev.args[0] = 3;
		ops[i].ev.path = "/a/b";
	}
	p.o = &o;
	p.ops = ops;
	p.n_ops = 10;
	p.t0 = 1;
	pr.tab = NULL;
	c = (struct rpl_ctx){ .p = &p, .pr = &pr };
	atomic_store(&rpl_stop_sig, 0);
	rpl_fault_seen(&c, &ops[4], -ENOSPC);
	rpl_fault_seen(&c, &ops[6], -EIO);	/* not the first */
	assert_int_equal(atomic_load(&rpl_stop_sig), RPL_STOP_FAULT);
	memset(&res, 0, sizeof(res));
	rpl_fault_result(&p, &res);
	assert_string_equal(res.fault, "ENOSPC at 40 % (write /a/b at 1.000 s)");
	assert_true(res.fault_stopped);
	assert_int_equal(res.fault_errno, ENOSPC);
	atomic_store(&rpl_stop_sig, 0);

	/* --on-error continue: kept, but nothing stops */
	o.on_error = RPL_ON_ERROR_CONTINUE;
	atomic_store(&p.fault_claimed, 0);
	rpl_fault_seen(&c, &ops[2], -EROFS);
	assert_int_equal(atomic_load(&rpl_stop_sig), 0);
	memset(&res, 0, sizeof(res));
	rpl_fault_result(&p, &res);
	assert_string_equal(res.fault, "EROFS at 20 % (write /a/b at 0.500 s)");
	assert_false(res.fault_stopped);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(socket_notconn),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
