/*
 * repair.c - rewrite a damaged or unindexed trace: keep every complete
 * frame, cut the damaged tail, append a fresh index marked repaired.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iotape.h"
#include "internal.h"

int iot_repair(const char *path, const char *out, uint64_t *kept)
{
	struct iot_reader *r = NULL;
	const struct iot_frame *fr;
	struct iot_frame *nf = NULL;
	const uint8_t *data;
	uint8_t *idx = NULL;
	char tmp[PATH_MAX];
	const char *dst = out;
	uint64_t hdr, off, events = 0;
	const struct iot_kv *late;
	size_t n, len, i, n_late;
	long ilen;
	int fd = -1, rc;

	if (!path || !out)
		return IOT_E_ARG;
	if ((rc = iot_reader_open(&r, path)))
		return rc;
	fr = iot_reader_frames(r, &n, &hdr);
	data = iot_reader_data(r, &len);
	/* The index only says what is in the file: decode every chunk so that
	 * a frame that is listed but corrupt is cut as well. */
	for (;;) {
		struct iot_item it;

		rc = iot_reader_next(r, &it);
		if (rc > 0)
			continue;
		if (rc == IOT_E_CORRUPT || rc == IOT_E_TRUNCATED)
			n = iot_reader_summary(r)->damage_frame;
		else if (rc < 0)
			goto out;
		break;
	}
	if (strcmp(path, out) == 0) {
		if (snprintf(tmp, sizeof(tmp), "%s.repair.XXXXXX", out) >= (int)sizeof(tmp)) {
			rc = -ENAMETOOLONG;
			goto out;
		}
		fd = mkstemp(tmp);
		dst = tmp;
		if (fd >= 0)
			fchmod(fd, 0644);
	} else {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	}
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	nf = calloc(n ? n : 1, sizeof(*nf));
	if (!nf) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = iot_write_all(fd, data, hdr)))
		goto out;
	off = hdr;
	for (i = 0; i < n; i++) {
		if ((rc = iot_write_all(fd, data + fr[i].offset, fr[i].size)))
			goto out;
		nf[i] = fr[i];
		nf[i].offset = off;
		nf[i].first_event = events;
		off += fr[i].size;
		events += fr[i].events;
	}
	n_late = iot_rd_late(r, &late);
	ilen = iot_index_frame(nf, n, iot_reader_summary(r)->dropped_events, 0, 1, late, n_late,
			       &idx);
	if (ilen < 0) {
		rc = (int)ilen;
		goto out;
	}
	if ((rc = iot_write_all(fd, idx, (size_t)ilen)))
		goto out;
	if (fsync(fd)) {
		rc = -errno;
		goto out;
	}
	if (close(fd)) {
		fd = -1;
		rc = -errno;
		goto out;
	}
	fd = -1;
	if (dst != out && rename(dst, out)) {
		rc = -errno;
		goto out;
	}
	dst = out;
	if (kept)
		*kept = events;
out:
	if (fd >= 0)
		close(fd);
	if (rc && dst != out)
		unlink(dst);
	free(nf);
	free(idx);
	iot_reader_close(r);
	return rc;
}
