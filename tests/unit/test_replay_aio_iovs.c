/*
 * test_replay_aio_iovs.c - a vectored async request's iovecs laid in the
 * replay's buffer (replay/aio.c, rpl_aio_iovs(), for libaio and
 * io_uring): each its recorded length, cut where the buffer ends; a
 * length a damaged trace gives below 0 is none, not 2^64 - 1 bytes past
 * the buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <cmocka.h>

#include "rpl.h"

static char buf[100];

static void lay(void **state)
{
	static const struct {
		int64_t v[5];
		uint32_t n;
		uint64_t want[5];
	} cases[] = {
		{ { 10, 20, 30 }, 3, { 10, 20, 30 } },
		/* cut at the buffer's end */
		{ { 60, 60, 5 }, 3, { 60, 40, 0 } },
		/* -1 after a first iovec: len + l wrapped below cap, and the
		 * iovec was 2^64 - 1 bytes long */
		{ { 16, -1, 8, INT64_MIN, INT64_MAX }, 5, { 16, 0, 8, 0, 76 } },
	};
	struct iovec iov[RPL_AIO_IOVS];
	size_t c;
	uint32_t i;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct iot_aio a = { .kind = IOT_AIO_SUBMIT, .vals = cases[c].v,
				     .nvals = cases[c].n };
		uint64_t at = 0;

		assert_int_equal(rpl_aio_iovs(&a, buf, sizeof(buf), iov), cases[c].n);
		for (i = 0; i < cases[c].n; i++) {
			assert_ptr_equal(iov[i].iov_base, buf + at);
			assert_int_equal(iov[i].iov_len, cases[c].want[i]);
			at += iov[i].iov_len;
		}
	}
}

/* at most RPL_AIO_IOVS of them */
static void at_most(void **state)
{
	int64_t v[RPL_AIO_IOVS + 3];
	struct iot_aio a = { .kind = IOT_AIO_SUBMIT, .vals = v, .nvals = RPL_AIO_IOVS + 3 };
	struct iovec iov[RPL_AIO_IOVS];
	size_t i;

	(void)state;
	for (i = 0; i < RPL_AIO_IOVS + 3; i++)
		v[i] = 1;
	assert_int_equal(rpl_aio_iovs(&a, buf, sizeof(buf), iov), RPL_AIO_IOVS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lay),
		cmocka_unit_test(at_most),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
