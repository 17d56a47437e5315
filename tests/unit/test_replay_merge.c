/*
 * test_replay_merge.c - one profile from the profiles of many clients
 * (replay/merge.c): client i's pids and tids moved by i x the stride in
 * events and Process records (0 and -1 kept), its times laid on client
 * 0's start, events in entry-time order across clients, the header's
 * replay keys from the sums and replay.clients / client_pid_stride; a
 * client without a profile left out; and rpl_result_add()'s sums.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "rpl.h"

#define MS 1000000LL

/* A profile of one client started at @start: a START of pid 100, a FORK
 * of 101 (parent 100), two events of 100 and one of 101, @gap ns apart. */
static void write_profile(const char *path, int64_t start, int64_t gap)
{
	struct iot_kv kv[] = { { "replay.elapsed_ns", "5" }, { "replay.source", "t.iotape" } };
	struct iot_header h = { .kind = IOT_KIND_PROFILE, .host = "h", .start_ns = start,
				.extra = kv, .n_extra = 2 };
	struct iot_process start_p = { .kind = IOT_PROC_START, .t_ns = start, .pid = 100,
				       .tid = 100, .ppid = 0 };
	struct iot_process fork_p = { .kind = IOT_PROC_FORK, .t_ns = start + gap, .pid = 101,
				      .tid = 101, .ppid = 100, .ptid = 100 };
	struct iot_event ev = { .nr = SYS_close, .nargs = 1 };
	struct iot_writer *w;
	int i;

	assert_int_equal(iot_writer_open(&w, path, &h, NULL), 0);
	assert_int_equal(iot_writer_process(w, &start_p), 0);
	assert_int_equal(iot_writer_process(w, &fork_p), 0);
	for (i = 0; i < 3; i++) {
		ev.pid = ev.tid = i == 2 ? 101 : 100;
		ev.t_enter = start + (i + 1) * gap;
		ev.t_exit = ev.t_enter + 1000;
		assert_int_equal(iot_writer_event(w, &ev), 0);
	}
	assert_int_equal(iot_writer_close(w, 0), 0);
}

static void test_merge(void **state)
{
	char dir[] = "/tmp/iotape-merge.XXXXXX", a[64], b[64], out[64];
	struct iot_reader *in[3] = { NULL, NULL, NULL }, *r;
	struct rpl_result *tot = calloc(1, sizeof(*tot));
	const struct iot_header *h;
	struct iot_item it;
	int64_t last = 0, base = 1000 * MS;
	int n_ev = 0, n_pr = 0, per[3] = { 0 };

	(void)state;
	assert_non_null(tot);
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	/* client 0 from 1 s, client 2 on a host whose clock reads 50 s;
	 * client 1 made no profile */
	write_profile(a, base, 10 * MS);
	write_profile(b, 50000 * MS, 7 * MS);
	assert_int_equal(iot_reader_open(&in[0], a), 0);
	assert_int_equal(iot_reader_open(&in[2], b), 0);
	tot->elapsed_ns = 42;
	tot->mismatches = 3;
	assert_int_equal(rpl_profiles_merge(out, in, 3, tot, "test"), 0);
	iot_reader_close(in[0]);
	iot_reader_close(in[2]);

	assert_int_equal(iot_reader_open(&r, out), 0);
	h = iot_reader_header(r);
	assert_int_equal(h->kind, IOT_KIND_PROFILE);
	assert_string_equal(iot_header_get(h, "replay.clients"), "3");
	assert_string_equal(iot_header_get(h, "replay.client_pid_stride"), "4194304");
	assert_string_equal(iot_header_get(h, "replay.elapsed_ns"), "42");
	assert_string_equal(iot_header_get(h, "replay.mismatches"), "3");
	assert_string_equal(iot_header_get(h, "replay.source"), "t.iotape");
	while (iot_reader_next(r, &it) > 0) {
		if (it.kind == IOT_ITEM_PROCESS) {
			const struct iot_process *p = &it.u.proc;
			int c = p->pid / RPL_CLIENT_PID_STRIDE;

			assert_true(c == 0 || c == 2);
			assert_true(p->pid % RPL_CLIENT_PID_STRIDE == 100 ||
				    p->pid % RPL_CLIENT_PID_STRIDE == 101);
			assert_int_equal(p->tid, p->pid);
			if (p->kind == IOT_PROC_START)
				assert_int_equal(p->ppid, 0);	/* "none" kept */
			else
				assert_int_equal(p->ppid, 100 + c * RPL_CLIENT_PID_STRIDE);
			/* on client 0's clock */
			assert_true(p->t_ns >= base && p->t_ns < base + 100 * MS);
			n_pr++;
		} else if (it.kind == IOT_ITEM_EVENT) {
			int c = it.u.ev.pid / RPL_CLIENT_PID_STRIDE;

			assert_int_equal(it.u.ev.tid, it.u.ev.pid);
			assert_true(it.u.ev.t_enter >= last);
			assert_true(it.u.ev.t_enter > base && it.u.ev.t_enter < base + 100 * MS);
			last = it.u.ev.t_enter;
			per[c]++;
			n_ev++;
		}
	}
	assert_int_equal(n_pr, 4);
	assert_int_equal(n_ev, 6);
	assert_int_equal(per[0], 3);
	assert_int_equal(per[1], 0);
	assert_int_equal(per[2], 3);
	iot_reader_close(r);
	unlink(a);
	unlink(b);
	unlink(out);
	rmdir(dir);
	free(tot);
}

static void test_result_add(void **state)
{
	struct rpl_result *t = calloc(1, sizeof(*t)), *r = calloc(1, sizeof(*r));

	(void)state;
	assert_non_null(t);
	assert_non_null(r);
	r->ops = 10;
	r->elapsed_ns = 5;
	r->sc[SYS_read].ops = 4;
	r->n_examples = 1;
	snprintf(r->examples[0], sizeof(r->examples[0]), "read(3) = 1, replayed: 0");
	rpl_result_add(t, r, 0);
	r->elapsed_ns = 9;
	r->fault_stopped = 1;
	snprintf(r->fault, sizeof(r->fault), "ENOSPC at 41 %%");
	rpl_result_add(t, r, 3);
	assert_int_equal(t->ops, 20);
	assert_int_equal(t->elapsed_ns, 9);	/* the longest client */
	assert_int_equal(t->sc[SYS_read].ops, 8);
	assert_int_equal(t->fault_stopped, 1);
	assert_string_equal(t->fault, "client 3: ENOSPC at 41 %");
	assert_int_equal(t->n_examples, 2);
	assert_string_equal(t->examples[1], "client 3: read(3) = 1, replayed: 0");
	free(t);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_result_add),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
