/*
 * header.c - the Header record: struct iot_header to protobuf and back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iotape.h"
#include "internal.h"

#define SET(m, f, v) do { (m)->has_##f = 1; (m)->f = (v); } while (0)

static void set_str(protobuf_c_boolean *has, ProtobufCBinaryData *b, const char *s)
{
	if (!s)
		return;
	*has = 1;
	b->len = strlen(s);
	b->data = (uint8_t *)s;
}

int iot_pb_kvs(const struct iot_kv *src, size_t n, Iotape__KeyValue **kv,
	       Iotape__KeyValue ***kvp)
{
	size_t i;

	*kv = calloc(n, sizeof(**kv));
	*kvp = calloc(n, sizeof(**kvp));
	if (!*kv || !*kvp) {
		free(*kv);
		free(*kvp);
		*kv = NULL;
		*kvp = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		iotape__key_value__init(&(*kv)[i]);
		set_str(&(*kv)[i].has_key, &(*kv)[i].key, src[i].key);
		set_str(&(*kv)[i].has_value, &(*kv)[i].value, src[i].value);
		(*kvp)[i] = &(*kv)[i];
	}
	return 0;
}

long iot_header_pack(const struct iot_header *h, uint8_t **raw, size_t *raw_cap)
{
	Iotape__Record rec = IOTAPE__RECORD__INIT;
	Iotape__Header m = IOTAPE__HEADER__INIT;
	Iotape__Target tg = IOTAPE__TARGET__INIT;
	Iotape__Mount *mt = NULL, **mtp = NULL;
	Iotape__KeyValue *kv = NULL, **kvp = NULL;
	Iotape__SyscallDesc *sd = NULL, **sdp = NULL;
	ProtobufCBinaryData *argv = NULL;
	uint32_t *kinds = NULL;
	const struct iot_syscall *tab = iot_syscall_table(NULL);
	size_t nsc, i, j;
	long rc = -ENOMEM;

	iot_syscall_table(&nsc);
	set_str(&m.has_magic, &m.magic, IOT_MAGIC);
	SET(&m, format_major, IOT_FORMAT_MAJOR);
	SET(&m, format_minor, IOT_FORMAT_MINOR);
	set_str(&m.has_tool_version, &m.tool_version,
		h->tool_version ? h->tool_version : IOT_VERSION);
	set_str(&m.has_host, &m.host, h->host);
	set_str(&m.has_kernel, &m.kernel, h->kernel);
	set_str(&m.has_arch, &m.arch, h->arch);
	set_str(&m.has_cwd, &m.cwd, h->cwd);
	set_str(&m.has_recorder, &m.recorder, h->recorder);
	set_str(&m.has_replay_options, &m.replay_options, h->replay_options);
	SET(&m, kind, h->kind);
	SET(&m, clock_id, h->clock_id);
	SET(&m, realtime_ns, h->realtime_ns);
	SET(&m, monotonic_ns, h->monotonic_ns);
	SET(&m, start_ns, h->start_ns);
	SET(&m, stop_cost_ns, h->stop_cost_ns);
	if (h->argc && h->argv) {
		if (!(argv = calloc(h->argc, sizeof(*argv))))
			goto out;
		for (i = 0; i < h->argc; i++) {
			protobuf_c_boolean has;

			set_str(&has, &argv[i], h->argv[i] ? h->argv[i] : "");
		}
		m.n_argv = h->argc;
		m.argv = argv;
	}
	if (h->n_mounts && h->mounts) {
		if (!(mt = calloc(h->n_mounts, sizeof(*mt))) ||
		    !(mtp = calloc(h->n_mounts, sizeof(*mtp))))
			goto out;
		for (i = 0; i < h->n_mounts; i++) {
			const struct iot_mount *s = &h->mounts[i];
			Iotape__Mount *d = &mt[i];

			iotape__mount__init(d);
			set_str(&d->has_device, &d->device, s->device);
			set_str(&d->has_mountpoint, &d->mountpoint, s->mountpoint);
			set_str(&d->has_fstype, &d->fstype, s->fstype);
			set_str(&d->has_options, &d->options, s->options);
			set_str(&d->has_root, &d->root, s->root);
			SET(d, dev_major, s->dev_major);
			SET(d, dev_minor, s->dev_minor);
			mtp[i] = d;
		}
		m.n_mounts = h->n_mounts;
		m.mounts = mtp;
	}
	if (h->n_extra && h->extra) {
		if (iot_pb_kvs(h->extra, h->n_extra, &kv, &kvp) < 0)
			goto out;
		m.n_extra = h->n_extra;
		m.extra = kvp;
	}
	if (h->target_fstype || h->target_device || h->target_mountpoint ||
	    h->target_mount_options || h->target_mkfs || h->target_label) {
		set_str(&tg.has_fstype, &tg.fstype, h->target_fstype);
		set_str(&tg.has_device, &tg.device, h->target_device);
		set_str(&tg.has_mountpoint, &tg.mountpoint, h->target_mountpoint);
		set_str(&tg.has_mount_options, &tg.mount_options, h->target_mount_options);
		set_str(&tg.has_mkfs_command, &tg.mkfs_command, h->target_mkfs);
		set_str(&tg.has_label, &tg.label, h->target_label);
		m.target = &tg;
	}
	if (!(sd = calloc(nsc, sizeof(*sd))) || !(sdp = calloc(nsc, sizeof(*sdp))) ||
	    !(kinds = calloc(nsc * IOT_MAX_ARGS, sizeof(*kinds))))
		goto out;
	for (i = 0; i < nsc; i++) {
		iotape__syscall_desc__init(&sd[i]);
		SET(&sd[i], nr, (uint32_t)tab[i].nr);
		set_str(&sd[i].has_name, &sd[i].name, tab[i].name);
		SET(&sd[i], report_class, tab[i].cls);
		SET(&sd[i], flags, tab[i].flags);
		for (j = 0; j < tab[i].nargs && j < IOT_MAX_ARGS; j++)
			kinds[i * IOT_MAX_ARGS + j] = tab[i].arg[j];
		sd[i].n_arg_kinds = j;
		sd[i].arg_kinds = &kinds[i * IOT_MAX_ARGS];
		sdp[i] = &sd[i];
	}
	m.n_syscalls = nsc;
	m.syscalls = sdp;
	rec.body_case = IOTAPE__RECORD__BODY_HEADER;
	rec.header = &m;
	rc = iot_pack_record(&rec, raw, raw_cap);
out:
	free(argv);
	free(mt);
	free(mtp);
	free(kv);
	free(kvp);
	free(sd);
	free(sdp);
	free(kinds);
	return rc;
}

static const char *hstr(struct iot_arena *a, protobuf_c_boolean has,
			const ProtobufCBinaryData *b)
{
	if (!has)
		return NULL;
	return iot_arena_strndup(a, (const char *)b->data, b->len);
}

#define HSTR(m, f) hstr(a, (m)->has_##f, &(m)->f)

/* A row's class.  Files written before the class was stored hold in `cls`
 * an older grouping (file, desc, dir, meta, ...) that does not say it: a
 * syscall this library knows gets its own row's class, any other OTHER. */
static int class_of(const Iotape__SyscallDesc *s, const char *name)
{
	const struct iot_syscall *own;

	if (s->has_report_class)
		return s->report_class < IOT_CLASS_COUNT ? (int)s->report_class : IOT_CLASS_OTHER;
	own = iot_syscall_by_name(name);
	return own ? own->cls : IOT_CLASS_OTHER;
}

int iot_header_unpack(struct iot_arena *a, const Iotape__Header *m,
		      struct iot_header *h)
{
	size_t i, j;

	if (!m->has_magic || m->magic.len != strlen(IOT_MAGIC) ||
	    memcmp(m->magic.data, IOT_MAGIC, m->magic.len) != 0)
		return IOT_E_NOT_IOTAPE;
	if (!m->has_format_major || m->format_major != IOT_FORMAT_MAJOR)
		return IOT_E_VERSION;
	h->format_major = m->format_major;
	h->format_minor = m->format_minor;
	h->kind = m->kind;
	h->tool_version = HSTR(m, tool_version);
	h->host = HSTR(m, host);
	h->kernel = HSTR(m, kernel);
	h->arch = HSTR(m, arch);
	h->cwd = HSTR(m, cwd);
	h->recorder = HSTR(m, recorder);
	h->replay_options = HSTR(m, replay_options);
	h->clock_id = m->clock_id;
	h->realtime_ns = m->realtime_ns;
	h->monotonic_ns = m->monotonic_ns;
	h->start_ns = m->start_ns;
	h->stop_cost_ns = m->stop_cost_ns;
	if (m->n_argv) {
		const char **argv = iot_arena_alloc(a, m->n_argv * sizeof(*argv));

		if (!argv)
			return -ENOMEM;
		for (i = 0; i < m->n_argv; i++)
			argv[i] = hstr(a, 1, &m->argv[i]);
		h->argc = (uint32_t)m->n_argv;
		h->argv = argv;
	}
	if (m->n_mounts) {
		struct iot_mount *mt = iot_arena_alloc(a, m->n_mounts * sizeof(*mt));

		if (!mt)
			return -ENOMEM;
		for (i = 0; i < m->n_mounts; i++) {
			const Iotape__Mount *s = m->mounts[i];

			mt[i].device = HSTR(s, device);
			mt[i].mountpoint = HSTR(s, mountpoint);
			mt[i].fstype = HSTR(s, fstype);
			mt[i].options = HSTR(s, options);
			mt[i].root = HSTR(s, root);
			mt[i].dev_major = s->dev_major;
			mt[i].dev_minor = s->dev_minor;
		}
		h->n_mounts = m->n_mounts;
		h->mounts = mt;
	}
	if (m->n_extra) {
		struct iot_kv *kv = iot_arena_alloc(a, m->n_extra * sizeof(*kv));

		if (!kv)
			return -ENOMEM;
		for (i = 0; i < m->n_extra; i++) {
			kv[i].key = HSTR(m->extra[i], key);
			kv[i].value = HSTR(m->extra[i], value);
		}
		h->n_extra = m->n_extra;
		h->extra = kv;
	}
	if (m->target) {
		const Iotape__Target *t = m->target;

		h->target_fstype = HSTR(t, fstype);
		h->target_device = HSTR(t, device);
		h->target_mountpoint = HSTR(t, mountpoint);
		h->target_mount_options = HSTR(t, mount_options);
		h->target_mkfs = HSTR(t, mkfs_command);
		h->target_label = HSTR(t, label);
	}
	if (m->n_syscalls) {
		struct iot_syscall *sc = iot_arena_alloc(a, m->n_syscalls * sizeof(*sc));

		if (!sc)
			return -ENOMEM;
		for (i = 0; i < m->n_syscalls; i++) {
			const Iotape__SyscallDesc *s = m->syscalls[i];

			memset(&sc[i], 0, sizeof(sc[i]));
			sc[i].nr = (int)s->nr;
			sc[i].name = HSTR(s, name);
			if (!sc[i].name)
				sc[i].name = "?";
			sc[i].cls = (uint8_t)class_of(s, sc[i].name);
			sc[i].flags = (uint16_t)s->flags;
			for (j = 0; j < s->n_arg_kinds && j < IOT_MAX_ARGS; j++)
				sc[i].arg[j] = (uint8_t)s->arg_kinds[j];
			sc[i].nargs = (uint8_t)j;
		}
		h->n_syscalls = m->n_syscalls;
		h->syscalls = sc;
	}
	return 0;
}

