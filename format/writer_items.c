/*
 * writer_items.c - what a writer appends to the chunk it builds: events,
 * path states, processes, async requests and mapped pages.  Each is
 * copied (the caller's buffers are its own again at return), then the
 * flush policy is checked.  See writer.c, writer_chunk.c.
 */
#include <errno.h>
#include <string.h>

#include "writer_int.h"

int iot_writer_event(struct iot_writer *w, const struct iot_event *ev)
{
	long p1, p2, ti;
	size_t i = w->n, k;
	uint32_t na;
	int rc;

	if ((rc = iot_wr_err(w)))
		return rc;
	na = ev->nargs > IOT_MAX_ARGS ? IOT_MAX_ARGS : ev->nargs;
	if (ev->data_len > IOT_DATA_MAX || (ev->data_len && !ev->data))
		return -EINVAL;
	if (i == w->cap && (rc = iot_wr_ev_grow(w)))
		return rc;
	if (iot_grow((void **)&w->args, &w->cap_args, w->n_args + na, sizeof(*w->args)) ||
	    (ev->data_len &&
	     iot_grow((void **)&w->dbuf, &w->dbuf_cap, w->dbuf_len + ev->data_len, 1)))
		return -ENOMEM;
	p1 = iot_wr_path_ref(w, ev->path, ev->path_len);
	p2 = iot_wr_path_ref(w, ev->path2, ev->path2_len);
	ti = iot_wr_tid_index(w, ev->tid, ev->pid);
	if (p1 < 0 || p2 < 0 || ti < 0)
		return p1 < 0 ? (int)p1 : p2 < 0 ? (int)p2 : (int)ti;
	w->t_enter[i] = ev->t_enter;
	w->duration[i] = (uint64_t)ev->t_exit - (uint64_t)ev->t_enter;
	w->tid_idx[i] = (uint32_t)ti;
	w->nr[i] = (uint32_t)ev->nr;
	w->ret[i] = ev->ret;
	w->nargs[i] = na;
	for (k = 0; k < na; k++)
		w->args[w->n_args++] = ev->args[k];
	w->path[i] = (uint32_t)p1;
	w->path2[i] = (uint32_t)p2;
	w->ev_flags[i] = ev->flags;
	w->pre_ns[i] = ev->pre_ns;
	w->cpu_ns[i] = ev->cpu_ns;
	w->slept_ns[i] = ev->slept_ns;
	w->run_ns[i] = ev->run_ns;
	w->woke_ns[i] = ev->woke_ns;
	w->waited_ns[i] = ev->waited_ns;
	w->waker[i] = ev->waker;
	w->gap_waker[i] = ev->gap_waker;
	w->ready_ns[i] = ev->ready_ns;
	w->data_len[i] = ev->data_len;
	if (ev->data_len) {
		memcpy(w->dbuf + w->dbuf_len, ev->data, ev->data_len);
		w->dbuf_len += ev->data_len;
	}
	w->any_path2 |= p2 != 0;
	w->any_flags |= ev->flags != 0;
	w->any_pre |= ev->pre_ns != 0;
	w->any_cpu |= ev->cpu_ns != 0;
	w->any_slept |= ev->slept_ns != 0;
	w->any_run |= ev->run_ns != 0;
	w->any_woke |= ev->woke_ns != 0;
	w->any_waited |= ev->waited_ns != 0;
	w->any_waker |= ev->waker != 0;
	w->any_gap_waker |= ev->gap_waker != 0;
	w->any_ready |= ev->ready_ns != 0;
	if (ev->t_enter < w->t_min)
		w->t_min = ev->t_enter;
	if (ev->t_exit > w->t_max)
		w->t_max = ev->t_exit;
	w->n++;
	w->events++;
	return iot_wr_maybe_flush(w);
}

/* Copy @s into the arena as protobuf bytes; NULL leaves the field absent. */
static int set_bytes(struct iot_arena *a, protobuf_c_boolean *has,
		     ProtobufCBinaryData *b, const char *s, size_t n)
{
	if (!s)
		return 0;
	if (a) {
		s = iot_arena_strndup(a, s, n);
		if (!s)
			return -ENOMEM;
	}
	*has = 1;
	b->len = n;
	b->data = (uint8_t *)s;
	return 0;
}

#define SET(m, f, v) do { (m)->has_##f = 1; (m)->f = (v); } while (0)

int iot_writer_path_state(struct iot_writer *w, const struct iot_path_state *s)
{
	const struct iot_ps_extra *e = s->extra;
	Iotape__PathState *m;
	int rc;

	if ((rc = iot_wr_err(w)))
		return rc;
	if (iot_grow((void **)&w->ps, &w->cap_ps, w->n_ps + 1, sizeof(*w->ps)))
		return -ENOMEM;
	m = iot_arena_alloc(w->arena, sizeof(*m));
	if (!m)
		return -ENOMEM;
	iotape__path_state__init(m);
	if ((rc = set_bytes(w->arena, &m->has_path, &m->path, s->path, s->path_len)) ||
	    (rc = set_bytes(w->arena, &m->has_target, &m->target, s->target,
			    s->target_len)))
		return rc;
	SET(m, type, s->type);
	SET(m, size, s->size);
	SET(m, mode, s->mode);
	SET(m, uid, s->uid);
	SET(m, gid, s->gid);
	SET(m, atime_ns, s->atime_ns);
	SET(m, mtime_ns, s->mtime_ns);
	SET(m, ctime_ns, s->ctime_ns);
	SET(m, nlink, s->nlink);
	SET(m, dev, s->dev);
	SET(m, ino, s->ino);
	SET(m, rdev, s->rdev);
	SET(m, flags, s->flags);
	SET(m, t_ns, s->t_ns);
	if ((s->flags & IOT_PS_SPARSE) && e && e->n_data) {
		size_t n = (size_t)e->n_data * 2;

		m->data = iot_arena_alloc(w->arena, n * sizeof(*m->data));
		if (!m->data)
			return -ENOMEM;
		memcpy(m->data, e->data, n * sizeof(*m->data));
		m->n_data = n;
	}
	if (e && e->n_xattrs) {
		uint32_t i;

		m->xattr_names = iot_arena_alloc(w->arena, e->n_xattrs * sizeof(*m->xattr_names));
		m->xattr_values = iot_arena_alloc(w->arena, e->n_xattrs * sizeof(*m->xattr_values));
		if (!m->xattr_names || !m->xattr_values)
			return -ENOMEM;
		memset(m->xattr_names, 0, e->n_xattrs * sizeof(*m->xattr_names));
		memset(m->xattr_values, 0, e->n_xattrs * sizeof(*m->xattr_values));
		for (i = 0; i < e->n_xattrs; i++) {
			const struct iot_xattr *x = &e->xattrs[i];
			protobuf_c_boolean has;

			if ((rc = set_bytes(w->arena, &has, &m->xattr_names[i], x->name,
					    x->name_len)) ||
			    (rc = set_bytes(w->arena, &has, &m->xattr_values[i],
					    (const char *)x->value, x->value_len)))
				return rc;
		}
		m->n_xattr_names = m->n_xattr_values = e->n_xattrs;
	}
	if (e && (e->attr_flags & IOT_PS_ATTR_FLAGS))
		SET(m, attr_flags, e->attr_flags & IOT_PS_ATTR_FLAGS);
	w->ps[w->n_ps++] = m;
	return iot_wr_maybe_flush(w);
}

int iot_writer_process(struct iot_writer *w, const struct iot_process *p)
{
	Iotape__Process *m;
	uint32_t i;
	int rc;

	if ((rc = iot_wr_err(w)))
		return rc;
	if (iot_grow((void **)&w->procs, &w->cap_procs, w->n_procs + 1, sizeof(*w->procs)))
		return -ENOMEM;
	m = iot_arena_alloc(w->arena, sizeof(*m));
	if (!m)
		return -ENOMEM;
	iotape__process__init(m);
	SET(m, kind, p->kind);
	SET(m, t_ns, p->t_ns);
	SET(m, pid, p->pid);
	SET(m, tid, p->tid);
	SET(m, ppid, p->ppid);
	SET(m, ptid, p->ptid);
	SET(m, clone_flags, p->clone_flags);
	SET(m, exit_status, p->exit_status);
	SET(m, utime_ns, p->utime_ns);
	SET(m, stime_ns, p->stime_ns);
	SET(m, old_tid, p->old_tid);
	if (p->rec_ns)
		SET(m, rec_ns, p->rec_ns);
	if (p->argc && p->argv) {
		m->argv = iot_arena_alloc(w->arena, p->argc * sizeof(*m->argv));
		if (!m->argv)
			return -ENOMEM;
		for (i = 0; i < p->argc; i++) {
			const char *a = p->argv[i] ? p->argv[i] : "";
			size_t n = p->argv_len ? p->argv_len[i] : strlen(a);
			protobuf_c_boolean has;

			if ((rc = set_bytes(w->arena, &has, &m->argv[i], a, n)))
				return rc;
		}
		m->n_argv = p->argc;
	}
	if ((rc = set_bytes(w->arena, &m->has_cwd, &m->cwd, p->cwd, p->cwd_len)) ||
	    (rc = set_bytes(w->arena, &m->has_exe, &m->exe, p->exe, p->exe_len)))
		return rc;
	w->procs[w->n_procs++] = m;
	return iot_wr_maybe_flush(w);
}


int iot_writer_aio(struct iot_writer *w, const struct iot_aio *a)
{
	Iotape__AsyncOp *m;
	int rc;

	if ((rc = iot_wr_err(w)))
		return rc;
	if (a->data_len > IOT_DATA_MAX || (a->data_len && !a->data))
		return -EINVAL;
	if (iot_grow((void **)&w->aio, &w->cap_aio, w->n_aio + 1, sizeof(*w->aio)) ||
	    (a->data_len &&
	     iot_grow((void **)&w->abuf, &w->abuf_cap, w->abuf_len + a->data_len, 1)))
		return -ENOMEM;
	m = iot_arena_alloc(w->arena, sizeof(*m));
	if (!m)
		return -ENOMEM;
	iotape__async_op__init(m);
	if ((rc = set_bytes(w->arena, &m->has_path, &m->path, a->path, a->path_len)) ||
	    (rc = set_bytes(w->arena, &m->has_path2, &m->path2, a->path2, a->path2_len)))
		return rc;
	SET(m, kind, a->kind);
	SET(m, api, a->api);
	SET(m, event, a->event);
	SET(m, t_ns, a->t_ns);
	SET(m, pid, a->pid);
	SET(m, tid, a->tid);
	SET(m, ctx, a->ctx);
	SET(m, opcode, a->opcode);
	SET(m, fd, a->fd);
	if (a->off)
		SET(m, off, a->off);
	SET(m, len, a->len);
	if (a->flags)
		SET(m, flags, a->flags);
	if (a->rw_flags)
		SET(m, rw_flags, a->rw_flags);
	SET(m, user_data, a->user_data);
	if (a->id)
		SET(m, id, a->id);
	if (a->kind != IOT_AIO_SUBMIT || a->res)
		SET(m, res, a->res);
	if (a->resfd >= 0)
		SET(m, resfd, a->resfd);
	if (a->buf_index)
		SET(m, buf_index, a->buf_index);
	if (a->nvals) {
		m->vals = iot_arena_alloc(w->arena, a->nvals * sizeof(*m->vals));
		if (!m->vals)
			return -ENOMEM;
		memcpy(m->vals, a->vals, a->nvals * sizeof(*m->vals));
		m->n_vals = a->nvals;
	}
	if (a->data_len) {
		SET(m, data_len, a->data_len);
		memcpy(w->abuf + w->abuf_len, a->data, a->data_len);
		w->abuf_len += a->data_len;
	}
	w->aio[w->n_aio++] = m;
	return iot_wr_maybe_flush(w);
}

static uint64_t *copy_runs(struct iot_arena *a, const uint64_t *v, uint32_t pairs)
{
	uint64_t *c = pairs ? iot_arena_alloc(a, 2 * pairs * sizeof(*c)) : NULL;

	if (c)
		memcpy(c, v, 2 * pairs * sizeof(*c));
	return c;
}

int iot_writer_mpages(struct iot_writer *w, const struct iot_mpages *mp)
{
	Iotape__MapPages *m;
	int rc;

	if ((rc = iot_wr_err(w)))
		return rc;
	if (iot_grow((void **)&w->mp, &w->cap_mp, w->n_mp + 1, sizeof(*w->mp)))
		return -ENOMEM;
	m = iot_arena_alloc(w->arena, sizeof(*m));
	if (!m)
		return -ENOMEM;
	iotape__map_pages__init(m);
	if ((rc = set_bytes(w->arena, &m->has_path, &m->path, mp->path, mp->path_len)))
		return rc;
	SET(m, event, mp->event);
	SET(m, t_ns, mp->t_ns);
	SET(m, pid, mp->pid);
	SET(m, tid, mp->tid);
	SET(m, page_size, mp->page_size);
	SET(m, why, mp->why);
	SET(m, addr, mp->addr);
	if (mp->flags)
		SET(m, flags, mp->flags);
	m->read_runs = copy_runs(w->arena, mp->read_runs, mp->n_read);
	m->write_runs = copy_runs(w->arena, mp->write_runs, mp->n_write);
	if ((mp->n_read && !m->read_runs) || (mp->n_write && !m->write_runs))
		return -ENOMEM;
	m->n_read_runs = 2 * (size_t)mp->n_read;
	m->n_write_runs = 2 * (size_t)mp->n_write;
	w->mp[w->n_mp++] = m;
	return iot_wr_maybe_flush(w);
}

