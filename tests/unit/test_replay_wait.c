/*
 * test_replay_wait.c - what a recorded wait (replay/ops_wait.c) sleeps in
 * the replay: a sleep that ran out, or a poll, select or epoll_wait that
 * timed out (0), sleeps its recorded duration, never longer than a
 * relative timeout; one that returned for an event or a signal is left to
 * the plan's order (-1).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <cmocka.h>

#include "rpl.h"

#define MS 1000000LL

static struct rpl_ev ev(int nr, int64_t dur, int64_t ret)
{
	struct rpl_ev e;

	memset(&e, 0, sizeof(e));
	e.nr = nr;
	e.t_enter = 5000 * MS;
	e.t_exit = e.t_enter + dur;
	e.ret = ret;
	e.nargs = (uint8_t)iot_syscall_by_nr(nr)->nargs;
	return e;
}

static void sleeps(void **state)
{
	struct rpl_ev e = ev(SYS_clock_nanosleep, 300 * MS + 4 * MS, 0);

	/* ran to its end: the timeout, not the tracer's 4 ms on top */
	e.args[2] = 300 * MS;
	assert_int_equal(rpl_wait_sleep_ns(&e), 300 * MS);
	/* an absolute deadline says nothing of the length: the duration */
	e.args[1] = TIMER_ABSTIME;
	e.args[2] = 1234567 * MS;
	assert_int_equal(rpl_wait_sleep_ns(&e), 304 * MS);
	/* shorter than its timeout (a fast-path record): the duration */
	e = ev(SYS_nanosleep, 250 * MS, 0);
	e.args[0] = 300 * MS;
	assert_int_equal(rpl_wait_sleep_ns(&e), 250 * MS);
	/* woken by a signal: not slept */
	e.ret = -EINTR;
	assert_int_equal(rpl_wait_sleep_ns(&e), -1);
	/* killed in it */
	e.ret = 0;
	e.flags = IOT_EV_UNFINISHED;
	assert_int_equal(rpl_wait_sleep_ns(&e), -1);
}

static void polls(void **state)
{
	struct rpl_ev e = ev(SYS_poll, 210 * MS, 0);

	e.args[2] = 200;	/* ms */
	assert_int_equal(rpl_wait_sleep_ns(&e), 200 * MS);
	/* something came: the plan orders it after what fed it */
	e.ret = 1;
	assert_int_equal(rpl_wait_sleep_ns(&e), -1);
	/* no timeout (-1) and 0: the duration */
	e = ev(SYS_epoll_wait, 7 * MS, 0);
	e.args[3] = -1;
	assert_int_equal(rpl_wait_sleep_ns(&e), 7 * MS);
	/* select's timeval, pselect6's timespec; NULL (-1) is no timeout */
	e = ev(SYS_select, 120 * MS, 0);
	e.args[4] = 100 * MS;
	assert_int_equal(rpl_wait_sleep_ns(&e), 100 * MS);
	e = ev(SYS_pselect6, 120 * MS, 0);
	e.args[4] = -1;
	assert_int_equal(rpl_wait_sleep_ns(&e), 120 * MS);
	e.ret = 2;
	assert_int_equal(rpl_wait_sleep_ns(&e), -1);
	/* no wait at all */
	e = ev(SYS_read, 120 * MS, 0);
	assert_int_equal(rpl_wait_sleep_ns(&e), -1);
}

/* Every wait row is in the wait class, has a timeout the rule can read,
 * and a handler; what `iotape report` calls the class. */
static void rows(void **state)
{
	static const int nrs[] = { SYS_nanosleep, SYS_clock_nanosleep, SYS_poll, SYS_ppoll,
		SYS_select, SYS_pselect6, SYS_epoll_wait, SYS_epoll_pwait, SYS_epoll_pwait2 };
	size_t i;

	for (i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
		const struct iot_syscall *sc = iot_syscall_by_nr(nrs[i]);

		assert_non_null(sc);
		assert_int_equal(sc->cls, IOT_CLASS_WAIT);
		assert_true(iot_syscall_arg(sc, IOT_ARG_TIMESPEC) >= 0 ||
			    iot_syscall_arg(sc, IOT_ARG_TIMEVAL) >= 0 ||
			    iot_syscall_arg(sc, IOT_ARG_MSEC) >= 0);
		assert_non_null(rpl_handler_for(nrs[i]));
	}
	assert_string_equal(iot_class_name(IOT_CLASS_WAIT), "wait");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sleeps),
		cmocka_unit_test(polls),
		cmocka_unit_test(rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
