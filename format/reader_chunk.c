/*
 * reader_chunk.c - a chunk frame decoded into a slot, checked, and given
 * out as items (processes, path states, events or spans, async requests,
 * mapped pages); seeking, and the thread that decodes ahead.
 *
 * Every column is checked against the event count before use, so a
 * hostile file yields an error, never a wild read.  Apart from reader.c
 * because this is the per-item path: what runs for every event, and what
 * runs on the thread of ahead.c (load_slot() touches only its slot).
 */
#include <errno.h>
#include <string.h>

#include "reader_int.h"

/* Turn a path column value (see iot_wr_path_ref() in writer_chunk.c: 0 none, 1 the
 * next new string, k the string introduced k-1 strings ago) into the
 * table index + 1, in place.  *@seen counts the strings introduced. */
static int path_index(uint32_t *v, size_t *seen, size_t n_strings)
{
	if (*v == 0)
		return 0;
	if (*v > *seen + 1)
		return IOT_E_CORRUPT;
	if (*v == 1 && ++*seen > n_strings)
		return IOT_E_CORRUPT;
	*v = (uint32_t)(*seen + (*v == 1 ? 0 : 2 - *v));
	return 0;
}

/* A chunk decoded for spans: only its threads and times. */
static int check_times(const Iotape__Chunk *c)
{
	size_t n = c->n_t_enter, i;

	if (c->n_duration != n || c->n_tid_idx != n || n > UINT32_MAX ||
	    (c->n_tid_pids != c->n_tids && c->n_tid_pids != 0))
		return IOT_E_CORRUPT;
	for (i = 0; i < n; i++)
		if (c->tid_idx[i] >= c->n_tids)
			return IOT_E_CORRUPT;
	return 0;
}

/* Reject a chunk whose columns do not agree; resolve its path columns. */
static int check_chunk(Iotape__Chunk *c)
{
	size_t n = c->n_t_enter, i, total = 0, seen = 0;
	uint32_t max_tid = 0, max_args = 0;
	uint64_t data = 0;

	if (c->n_duration != n || c->n_tid_idx != n || c->n_nr != n ||
	    c->n_ret != n || c->n_nargs != n ||
	    (c->n_path != n && c->n_path != 0) ||
	    (c->n_path2 != n && c->n_path2 != 0) ||
	    (c->n_ev_flags != n && c->n_ev_flags != 0) ||
	    (c->n_pre_ns != n && c->n_pre_ns != 0) ||
	    (c->n_cpu_ns != n && c->n_cpu_ns != 0) ||
	    (c->n_slept_ns != n && c->n_slept_ns != 0) ||
	    (c->n_run_ns != n && c->n_run_ns != 0) ||
	    (c->n_woke_ns != n && c->n_woke_ns != 0) ||
	    (c->n_waited_ns != n && c->n_waited_ns != 0) ||
	    (c->n_waker != n && c->n_waker != 0) ||
	    (c->n_gap_waker != n && c->n_gap_waker != 0) ||
	    (c->n_ready_ns != n && c->n_ready_ns != 0) ||
	    (c->n_data_len != n && c->n_data_len != 0) ||
	    (c->n_tid_pids != c->n_tids && c->n_tid_pids != 0))
		return IOT_E_CORRUPT;
	if (n > UINT32_MAX)
		return IOT_E_CORRUPT;
	for (i = 0; i < c->n_data_len; i++) {
		/* each length is below 2^32: the sum cannot wrap */
		data += c->data_len[i];
		if (data > (c->has_data ? c->data.len : 0))
			return IOT_E_CORRUPT;
	}
	/* the async requests' bytes, after the events' */
	for (i = 0; i < c->n_async_ops; i++) {
		data += c->async_ops[i]->data_len;
		if (c->async_ops[i]->data_len > IOT_DATA_MAX ||
		    data > (c->has_data ? c->data.len : 0))
			return IOT_E_CORRUPT;
	}
	/* the largest tid index and argument count, checked after the loop,
	 * which then has no branch */
	for (i = 0; i < n; i++) {
		max_tid = c->tid_idx[i] > max_tid ? c->tid_idx[i] : max_tid;
		max_args = c->nargs[i] > max_args ? c->nargs[i] : max_args;
		total += c->nargs[i];
	}
	if (n && (max_tid >= c->n_tids || max_args > IOT_MAX_ARGS))
		return IOT_E_CORRUPT;
	/* each column is empty or has n values (above) */
	if (c->n_path && c->n_path2) {
		for (i = 0; i < n; i++)
			if (path_index(&c->path[i], &seen, c->n_strings) ||
			    path_index(&c->path2[i], &seen, c->n_strings))
				return IOT_E_CORRUPT;
	} else {
		uint32_t *p = c->n_path ? c->path : c->path2;
		size_t m = c->n_path || c->n_path2 ? n : 0;

		for (i = 0; i < m; i++)
			if (path_index(&p[i], &seen, c->n_strings))
				return IOT_E_CORRUPT;
	}
	return total == c->n_args ? 0 : IOT_E_CORRUPT;
}

/* The mapping's pages of a frame read are dropped with it when one thread
 * reads; with a thread reading ahead, a block of RELEASE_BLOCK bytes at a
 * time, when the frame that ends in the next block is read: a drop of
 * the pages of a process with a thread on the other CPU flushes that
 * CPU's TLB by an interrupt, and one a frame was one a chunk.  The last
 * frame drops what is left. */
#define RELEASE_BLOCK (1u << 20)

static void release_frame(const struct iot_reader *r, const struct iot_frame *f)
{
	uint64_t from = f->offset / RELEASE_BLOCK, to = (f->offset + f->size) / RELEASE_BLOCK;

	if (!r->depth || f == &r->frames[r->n_frames - 1])
		iot_rd_release_range(r, r->depth ? from * RELEASE_BLOCK : f->offset,
				     f->offset + f->size);
	else if (to > from)
		iot_rd_release_range(r, from * RELEASE_BLOCK, to * RELEASE_BLOCK);
}

/* Decode frame @f as a chunk into slot @s; with @spans, only what
 * iot_reader_set_spans() gives.  Touches nothing of @r but @s, so that it
 * can run on the thread of ahead.c. */
static int load_slot(const struct iot_reader *r, struct slot *s, const struct iot_frame *f,
		     int spans)
{
	const uint8_t *rec, *cb;
	Iotape__Chunk *c;
	size_t i, len, clen;
	int rc;

	s->ch = NULL;
	iot_arena_reset(s->arena);
	if (f->offset > r->len || f->size > r->len - f->offset)
		return IOT_E_TRUNCATED;
	rc = iot_rd_decompress(s, r->data + f->offset, f->size, &rec, &len);
	release_frame(r, f);
	if (rc || (rc = iot_record_chunk(rec, len, &cb, &clen)) ||
	    (rc = iot_chunk_decode_raw(s->arena, cb, clen,
				       spans ? IOT_CHUNK_TIMES : IOT_CHUNK_ALL | IOT_CHUNK_ARGS_RAW,
				       &c, &s->args)) ||
	    (rc = iot_chunk_expand(s->arena, c)))
		return rc;
	if ((rc = spans ? check_times(c) : check_chunk(c)))
		return rc;
	s->spans = spans;
	s->str = NULL;
	if (c->n_strings) {
		s->str = iot_arena_alloc(s->arena, c->n_strings * sizeof(*s->str));
		if (!s->str)
			return -ENOMEM;
		for (i = 0; i < c->n_strings; i++) {
			/* names (1.3) are expanded with their 0 byte */
			s->str[i] = c->has_names ? (const char *)c->strings[i].data :
				    iot_arena_strndup(s->arena,
						      (const char *)c->strings[i].data,
						      c->strings[i].len);
			if (!s->str[i])
				return -ENOMEM;
		}
	}
	s->last_exit = iot_arena_alloc(s->arena, (c->n_tids + 1) * sizeof(*s->last_exit));
	s->seen = iot_arena_alloc(s->arena, c->n_tids + 1);
	if (!s->last_exit || !s->seen)
		return -ENOMEM;
	memset(s->seen, 0, c->n_tids + 1);
	s->extra = c->n_ev_flags || c->n_pre_ns || c->n_cpu_ns || c->n_slept_ns ||
		   c->n_run_ns || c->n_woke_ns || c->n_waited_ns || c->n_waker ||
		   c->n_gap_waker || c->n_ready_ns || c->n_data_len;
	s->ch = c;
	return 0;
}

static int ahead_load(void *ctx, void *slot, size_t frame, int spans)
{
	const struct iot_reader *r = ctx;

	return load_slot(r, slot, &r->frames[frame], spans);
}

/* Read slot @s from its start. */
static void use_slot(struct iot_reader *r, struct slot *s)
{
	r->cur = s;
	r->arena = s->arena;
	r->ch = s->ch;
	r->i_proc = r->i_ps = r->i_ev = r->i_arg = r->i_aio = r->i_mp = 0;
	r->arg_p = s->args.p;
	r->i_data = 0;
	r->i_adata = 0;
	/* the async requests' bytes start after the events' */
	for (size_t i = 0; r->ch && r->ch->n_async_ops && i < r->ch->n_data_len; i++)
		r->i_adata += r->ch->data_len[i];
	r->prev_exit = 0;
}

/* Frame @f as the current chunk, in slot @s. */
int iot_rd_load_chunk(struct iot_reader *r, struct slot *s, const struct iot_frame *f,
		      int spans)
{
	int rc = load_slot(r, s, f, spans);

	use_slot(r, s);
	return rc;
}

/* With the thread, frame k goes to slot k mod (depth + 1): the frames
 * in flight, k + 1 to k + depth, are then never in the slot read. */
static struct slot *slot_of(struct iot_reader *r, size_t k)
{
	return &r->slots[k % (size_t)(r->depth + 1)];
}

/* Frame @k of the index as the current chunk: the one decoded ahead if it
 * is that one (else it is loaded here, and what was ahead dropped), and
 * then the thread is given the frames up to k + depth. */
static int next_chunk(struct iot_reader *r, size_t k)
{
	void *s;
	int rc;

	if (!r->ahead)
		return iot_rd_load_chunk(r, r->cur, &r->frames[k], r->spans);
	if (iot_ahead_take(r->ahead, k, r->spans, &s, &rc)) {
		use_slot(r, s);
	} else {
		rc = iot_rd_load_chunk(r, slot_of(r, k), &r->frames[k], r->spans);
		r->ahead_next = k + 1;
	}
	while (!rc && r->ahead_next < r->n_frames && r->ahead_next <= k + (size_t)r->depth &&
	       iot_ahead_post(r->ahead, slot_of(r, r->ahead_next), r->ahead_next, r->spans))
		r->ahead_next++;
	return rc;
}

/* ---- iteration ---- */

static const char *bstr(struct iot_arena *a, protobuf_c_boolean has,
			const ProtobufCBinaryData *b, uint32_t *len)
{
	*len = has ? (uint32_t)b->len : 0;
	return has ? iot_arena_strndup(a, (const char *)b->data, b->len) : NULL;
}

static int fill_process(struct iot_reader *r, const Iotape__Process *m,
			struct iot_process *p)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->kind = m->kind;
	p->t_ns = m->t_ns;
	p->pid = m->pid;
	p->tid = m->tid;
	p->ppid = m->ppid;
	p->ptid = m->ptid;
	p->clone_flags = m->clone_flags;
	p->exit_status = m->exit_status;
	p->utime_ns = m->utime_ns;
	p->stime_ns = m->stime_ns;
	p->old_tid = m->old_tid;
	p->rec_ns = m->rec_ns;
	p->cwd = bstr(r->arena, m->has_cwd, &m->cwd, &p->cwd_len);
	p->exe = bstr(r->arena, m->has_exe, &m->exe, &p->exe_len);
	if (m->n_argv) {
		const char **argv = iot_arena_alloc(r->arena, m->n_argv * sizeof(*argv));
		uint32_t *alen = iot_arena_alloc(r->arena, m->n_argv * sizeof(*alen));

		if (!argv || !alen)
			return -ENOMEM;
		for (i = 0; i < m->n_argv; i++)
			if (!(argv[i] = bstr(r->arena, 1, &m->argv[i], &alen[i])))
				return -ENOMEM;
		p->argc = (uint32_t)m->n_argv;
		p->argv = argv;
		p->argv_len = alen;
	}
	return 0;
}

/* What few states have (a sparse file's data ranges, extended
 * attributes: names and values pairwise, a name without a value with an
 * empty one; attribute flags) into @s->extra, if @m has any. */
static void fill_extra(struct iot_reader *r, const Iotape__PathState *m,
		       struct iot_path_state *s)
{
	struct iot_ps_extra *e;
	struct iot_xattr *x;
	size_t i;

	if (!(m->flags & IOT_PS_SPARSE) && !m->n_xattr_names && !m->attr_flags)
		return;
	if (m->n_xattr_names > UINT32_MAX || !(e = iot_arena_alloc(r->arena, sizeof(*e))))
		return;
	memset(e, 0, sizeof(*e));
	e->attr_flags = m->attr_flags & IOT_PS_ATTR_FLAGS;
	if (m->flags & IOT_PS_SPARSE) {
		e->data = m->data;
		e->n_data = (uint32_t)(m->n_data / 2);
	}
	s->extra = e;
	if (!m->n_xattr_names || !(x = iot_arena_alloc(r->arena, m->n_xattr_names * sizeof(*x))))
		return;
	for (i = 0; i < m->n_xattr_names; i++) {
		const ProtobufCBinaryData *v = i < m->n_xattr_values ? &m->xattr_values[i] : NULL;

		x[i].name = bstr(r->arena, 1, &m->xattr_names[i], &x[i].name_len);
		x[i].value = (const uint8_t *)bstr(r->arena, v != NULL, v, &x[i].value_len);
		if (!x[i].name)
			return;
	}
	e->xattrs = x;
	e->n_xattrs = (uint32_t)m->n_xattr_names;
}

static void fill_path_state(struct iot_reader *r, const Iotape__PathState *m,
			    struct iot_path_state *s)
{
	memset(s, 0, sizeof(*s));
	s->path = bstr(r->arena, m->has_path, &m->path, &s->path_len);
	s->target = bstr(r->arena, m->has_target, &m->target, &s->target_len);
	s->type = m->type;
	s->size = m->size;
	s->mode = m->mode;
	s->uid = m->uid;
	s->gid = m->gid;
	s->atime_ns = m->atime_ns;
	s->mtime_ns = m->mtime_ns;
	s->ctime_ns = m->ctime_ns;
	s->nlink = m->nlink;
	s->dev = m->dev;
	s->ino = m->ino;
	s->rdev = m->rdev;
	s->t_ns = m->t_ns;
	s->flags = m->flags;
	fill_extra(r, m, s);
}

/* Which of an event's 6 argument values to keep, by its count: the
 * args column has IOT_MAX_ARGS values of room after its end (chunk.c),
 * so all 6 are read and masked, without a call or a loop. */
_Static_assert(IOT_MAX_ARGS == 6, "fill_event() copies six arguments");
static const int64_t arg_keep[IOT_MAX_ARGS + 1][IOT_MAX_ARGS] = {
	{ 0, 0, 0, 0, 0, 0 },
	{ -1, 0, 0, 0, 0, 0 },
	{ -1, -1, 0, 0, 0, 0 },
	{ -1, -1, -1, 0, 0, 0 },
	{ -1, -1, -1, -1, 0, 0 },
	{ -1, -1, -1, -1, -1, 0 },
	{ -1, -1, -1, -1, -1, -1 },
};

static void fill_event(struct iot_reader *r, struct iot_event *ev)
{
	uint64_t t_exit;
	const Iotape__Chunk *c = r->ch;
	size_t i = r->i_ev++;
	uint32_t ti = c->tid_idx[i], p, na = c->nargs[i];

	ev->t_enter = (int64_t)iot_rd_next_time(r, i, &t_exit);
	ev->t_exit = (int64_t)t_exit;
	ev->tid = c->tids[ti];
	ev->pid = c->n_tid_pids ? c->tid_pids[ti] : ev->tid;
	ev->nr = (int32_t)c->nr[i];
	if (r->cur->extra) {
		ev->flags = c->n_ev_flags ? c->ev_flags[i] : 0;
		ev->pre_ns = c->n_pre_ns ? c->pre_ns[i] : 0;
		ev->cpu_ns = c->n_cpu_ns ? c->cpu_ns[i] : 0;
		ev->slept_ns = c->n_slept_ns ? c->slept_ns[i] : 0;
		ev->run_ns = c->n_run_ns ? c->run_ns[i] : 0;
		ev->woke_ns = c->n_woke_ns ? c->woke_ns[i] : 0;
		ev->waited_ns = c->n_waited_ns ? c->waited_ns[i] : 0;
		ev->waker = c->n_waker ? c->waker[i] : 0;
		ev->gap_waker = c->n_gap_waker ? c->gap_waker[i] : 0;
		ev->ready_ns = c->n_ready_ns ? c->ready_ns[i] : 0;
		ev->data_len = c->n_data_len ? c->data_len[i] : 0;
		ev->data = ev->data_len ? c->data.data + r->i_data : NULL;
		r->i_data += ev->data_len;
	} else {
		ev->flags = ev->pre_ns = ev->cpu_ns = ev->slept_ns = 0;
		ev->run_ns = ev->woke_ns = ev->waited_ns = ev->waker = ev->gap_waker = ev->data_len = 0;
		ev->ready_ns = 0;
		ev->data = NULL;
	}
	ev->ret = c->ret[i];
	ev->nargs = na;
	/* check_chunk() saw na <= IOT_MAX_ARGS; a chunk without values
	 * (all na 0) may have no column to read */
	if (r->arg_p) {
		/* packed (chunk.c checked them: n_args whole varints of at
		 * most 10 bytes, as many as the events' nargs add up to) */
		const uint8_t *q = r->arg_p;
		uint32_t k;

		memset(ev->args, 0, sizeof(ev->args));
		for (k = 0; k < na; k++) {
			uint64_t v = *q++, b;
			unsigned sh = 7;

			if (v & 0x80) {
				v &= 0x7f;
				do {
					b = *q++;
					v |= (b & 0x7f) << sh;
					sh += 7;
				} while (b & 0x80);
			}
			ev->args[k] = (int64_t)((v >> 1) ^ -(v & 1));
		}
		r->arg_p = q;
	} else if (c->n_args) {
		const int64_t *a = c->args + r->i_arg, *m = arg_keep[na];

		/* six statements, not a loop: -O2 neither unrolls nor
		 * vectorizes the loop, it pairs these */
		ev->args[0] = a[0] & m[0];
		ev->args[1] = a[1] & m[1];
		ev->args[2] = a[2] & m[2];
		ev->args[3] = a[3] & m[3];
		ev->args[4] = a[4] & m[4];
		ev->args[5] = a[5] & m[5];
		r->i_arg += na;
	} else {
		memset(ev->args, 0, sizeof(ev->args));
	}
	p = c->n_path ? c->path[i] : 0;
	ev->path = p ? r->cur->str[p - 1] : NULL;
	ev->path_len = p ? (uint32_t)c->strings[p - 1].len : 0;
	p = c->n_path2 ? c->path2[i] : 0;
	ev->path2 = p ? r->cur->str[p - 1] : NULL;
	ev->path2_len = p ? (uint32_t)c->strings[p - 1].len : 0;
}

/* All the events of the current chunk as one span. */
static void fill_span(struct iot_reader *r, struct iot_span *sp)
{
	const Iotape__Chunk *c = r->ch;
	uint32_t t0 = c->tid_idx[r->i_ev];
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t i;

	sp->events = c->n_t_enter - r->i_ev;
	sp->tid = c->tids[t0];
	sp->pid = c->n_tid_pids ? c->tid_pids[t0] : sp->tid;
	for (i = r->i_ev; i < c->n_t_enter; i++) {
		uint64_t x;
		int64_t te = (int64_t)iot_rd_next_time(r, i, &x);
		int64_t end = (int64_t)x > te ? (int64_t)x : te;

		if (te < lo)
			lo = te;
		if (end > hi)
			hi = end;
	}
	r->i_ev = c->n_t_enter;
	sp->t_min = lo;
	sp->t_end = hi;
}

static void fill_aio(struct iot_reader *r, const Iotape__AsyncOp *m,
		     struct iot_aio *a)
{
	memset(a, 0, sizeof(*a));
	a->kind = m->kind;
	a->api = m->api;
	a->event = m->event;
	a->t_ns = m->t_ns;
	a->pid = m->pid;
	a->tid = m->tid;
	a->ctx = m->ctx;
	a->opcode = m->opcode;
	a->fd = m->fd;
	a->off = m->off;
	a->len = m->len;
	a->flags = m->flags;
	a->rw_flags = m->rw_flags;
	a->user_data = m->user_data;
	a->id = m->id;
	a->res = m->res;
	a->resfd = m->has_resfd ? m->resfd : -1;
	a->buf_index = m->buf_index;
	a->nvals = (uint32_t)m->n_vals;
	a->vals = m->vals;
	a->path = bstr(r->arena, m->has_path, &m->path, &a->path_len);
	a->path2 = bstr(r->arena, m->has_path2, &m->path2, &a->path2_len);
	/* check_chunk() saw them all inside the chunk's data */
	if (m->data_len) {
		a->data = r->ch->data.data + r->i_adata;
		a->data_len = m->data_len;
		r->i_adata += m->data_len;
	}
}

/* A chunk that fails to decode although the index listed it: report it
 * as damage and stop there. */
static int chunk_damage(struct iot_reader *r, size_t frame, int rc)
{
	r->err = rc;
	if (rc == IOT_E_CORRUPT || rc == IOT_E_TRUNCATED) {
		if (!r->sum.damage || frame < r->sum.damage_frame) {
			r->sum.damage = rc;
			r->sum.damage_frame = frame;
			r->sum.damage_offset = r->frames[frame].offset;
			r->sum.good_t_max = frame ? r->frames[frame - 1].t_max : 0;
		}
	}
	return rc;
}

int iot_reader_next(struct iot_reader *r, struct iot_item *it)
{
	int rc;

	for (;;) {
		const Iotape__Chunk *c = r->ch;

		if (r->err)
			return r->err;
		if (!c) {
			const struct iot_frame *f;

			if (r->next_frame >= r->n_frames)
				return 0;
			f = &r->frames[r->next_frame];
			rc = next_chunk(r, r->next_frame);
			if (!rc && r->ch->n_t_enter != f->events)
				rc = IOT_E_CORRUPT;
			if (rc) {
				r->ch = NULL;
				return chunk_damage(r, r->next_frame, rc);
			}
			r->cur_frame = r->next_frame++;
			continue;
		}
		it->chunk = r->cur_frame;
		if (r->i_proc < c->n_processes) {
			it->kind = IOT_ITEM_PROCESS;
			rc = fill_process(r, c->processes[r->i_proc++], &it->u.proc);
			return rc ? rc : 1;
		}
		if (r->cur->spans) {
			if (r->i_ev < c->n_t_enter) {
				it->kind = IOT_ITEM_SPAN;
				fill_span(r, &it->u.span);
				return 1;
			}
			r->ch = NULL;
			continue;
		}
		if (r->i_ps < c->n_path_states) {
			it->kind = IOT_ITEM_PATH_STATE;
			fill_path_state(r, c->path_states[r->i_ps++], &it->u.ps);
			return 1;
		}
		if (r->i_ev < c->n_t_enter) {
			it->kind = IOT_ITEM_EVENT;
			fill_event(r, &it->u.ev);
			return 1;
		}
		if (r->i_aio < c->n_async_ops) {
			it->kind = IOT_ITEM_AIO;
			fill_aio(r, c->async_ops[r->i_aio++], &it->u.aio);
			return 1;
		}
		if (r->i_mp < c->n_map_pages) {
			const Iotape__MapPages *m = c->map_pages[r->i_mp++];
			struct iot_mpages *mp = &it->u.mp;

			it->kind = IOT_ITEM_MPAGES;
			memset(mp, 0, sizeof(*mp));
			mp->event = m->event;
			mp->t_ns = m->t_ns;
			mp->pid = m->pid;
			mp->tid = m->tid;
			mp->path = bstr(r->arena, m->has_path, &m->path, &mp->path_len);
			mp->page_size = m->page_size ? m->page_size : 4096;
			mp->n_read = (uint32_t)(m->n_read_runs / 2);
			mp->n_write = (uint32_t)(m->n_write_runs / 2);
			mp->read_runs = m->read_runs;
			mp->write_runs = m->write_runs;
			mp->why = m->why;
			mp->addr = m->addr;
			mp->flags = m->flags;
			return 1;
		}
		r->ch = NULL;
	}
}

int iot_reader_seek_frame(struct iot_reader *r, uint64_t frame)
{
	if (frame > r->n_frames)
		return IOT_E_RANGE;
	r->ch = NULL;
	r->err = 0;
	r->next_frame = (size_t)frame;
	return 0;
}

int iot_reader_set_ahead(struct iot_reader *r, int on)
{
	int depth = on < 0 ? 0 : on > IOT_AHEAD_MAX ? IOT_AHEAD_MAX : on, i, rc = 0;

	if (r->ahead && depth == r->depth)
		return 0;
	/* off, or another depth: the slots change */
	iot_ahead_stop(r->ahead);
	r->ahead = NULL;
	r->depth = 0;
	/* off: the slots the thread filled are let go (a decoded chunk
	 * each), all but the one being read; made again if it comes back */
	for (i = 0; !depth && i <= IOT_AHEAD_MAX; i++) {
		struct slot *s = &r->slots[i];

		if (s != r->cur && s->dctx)
			iot_rd_slot_free(s);
	}
	for (i = 0; !rc && i <= depth; i++)
		if (!r->slots[i].dctx)
			rc = iot_rd_slot_init(&r->slots[i]);
	if (!rc && depth)
		rc = iot_ahead_start(&r->ahead, ahead_load, r);
	if (!rc)
		r->depth = depth;
	for (i = 0; i <= IOT_AHEAD_MAX; i++)
		if (r->slots[i].arena)
			iot_arena_keep_used(r->slots[i].arena, r->depth > 0);
	return rc;
}

void iot_reader_set_spans(struct iot_reader *r, int on)
{
	r->spans = on != 0;
}

int iot_reader_rewind(struct iot_reader *r)
{
	return iot_reader_seek_frame(r, 0);
}

int iot_reader_seek_time(struct iot_reader *r, int64_t t_ns)
{
	size_t i;

	for (i = 0; i < r->n_frames; i++)
		if (r->frames[i].events && r->frames[i].t_max >= t_ns)
			return iot_reader_seek_frame(r, i);
	iot_reader_seek_frame(r, r->n_frames);
	return IOT_E_RANGE;
}
