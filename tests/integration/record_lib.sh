# record_lib.sh - helpers for the record_*.sh tests (sourced after lib.sh).

# mask_dump FILE DIR - `iotape dump` lines with pids, times and durations
# taken out and DIR written as @DIR@; only lines that name DIR, plus
# process lines (---, +++).
mask_dump() {
	"$IOTAPE" dump "$1" | grep -v '^#' | untimed |
		sed -E -e "s|$2|@DIR@|g" -e 's/(parent|thread of|from thread) [0-9]+/\1 N/' |
		grep -E '@DIR@|^---|^\+\+\+' | grep -v '^--- start'
}

need_ptrace() {
	"$IOTAPE" record -q -o /dev/null -- true 2>/dev/null ||
		skip "ptrace is not permitted here (container or yama ptrace_scope)"
}

need_fastpath_lib() {
	[ -f "$(dirname "$IOTAPE")/libiotape-fast.so" ] || skip "libiotape-fast.so is not built"
}

# events_from_dir FILE DIR - every event line from the first that names
# DIR on, masked as in mask_dump (the dynamic loader's calls come before)
events_from_dir() {
	"$IOTAPE" dump "$1" | grep -v '^#' | untimed | sed -e "s|$2|@DIR@|g" |
		grep -v '^---\|^+++' | awk '/@DIR@/ { on = 1 } on'
}

# mk_proj DIR [PREFIX] - a three-file C program with a Makefile in DIR,
# each source starting with the line PREFIX if given (e.g. an #include)
mk_proj() {
	local d=$1 pre=${2:-} i
	mkdir -p "$d"
	for i in 1 2 3; do
		{ [ -n "$pre" ] && printf '%s\n' "$pre"
		  printf 'int f%d(void) { return %d; }\n' $i $i; } >"$d/f$i.c"
	done
	printf 'int f1(void); int main(void) { return f1() - 1; }\n' >>"$d/f1.c"
	printf 'prog: f1.o f2.o f3.o\n\t$(CC) -o $@ $^\n%%.o: %%.c\n\t$(CC) -c -o $@ $<\n' >"$d/Makefile"
}

# The mapped-page tests (record_mmap.sh, record_bpf_mmap.sh):
# mk_map_progs - in the current directory, prog.py BIG W (reads BIG
# through a read-only mapping, a byte per page, then writes 64 pages of W
# through a shared mapping and msyncs) and fork.py WF (a child writes 32
# pages of a shared mapping it inherited, and msyncs)
mk_map_progs() {
	cat >prog.py <<'PY'
import mmap, sys
with open(sys.argv[1], "rb") as f:
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    s = 0
    for i in range(0, len(m), 4096):
        s += m[i]
    m.close()
with open(sys.argv[2], "r+b") as g:
    w = mmap.mmap(g.fileno(), 0)
    for i in range(0, 64 * 4096, 4096):
        w[i] = 1
    w.flush()
    w.close()
PY
	cat >fork.py <<'PY'
import mmap, os, sys
with open(sys.argv[1], "r+b") as g:
    w = mmap.mmap(g.fileno(), 0)
    pid = os.fork()
    if pid == 0:
        for i in range(16 * 4096, 48 * 4096, 4096):
            w[i] = 2
        w.flush()
        os._exit(0)
    os.waitpid(pid, 0)
    w.close()
PY
}

# drop_pages FILE - FILE's pages out of the cache (written back first),
# and no other file's
drop_pages() {
	"$PY" -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1" || fail "cannot drop the pages of $1"
}

# replay_inblock TRACE ROOT [ARG...] - replay TRACE into ROOT (prepared
# already) and print "inblock BYTES": what it read from block devices
replay_inblock() {
	"$PY" - "$IOTAPE" "$@" <<'PY'
import resource, subprocess, sys
r = subprocess.run([sys.argv[1], "replay", sys.argv[2], "--root", sys.argv[3], "--no-prepare"] +
                   sys.argv[4:])
print("inblock", resource.getrusage(resource.RUSAGE_CHILDREN).ru_inblock * 512)
sys.exit(r.returncode)
PY
}

# replay_cold TRACE ROOT FILE OUT [ARG...] - prepare TRACE's starting tree
# in a new ROOT, drop FILE's pages (its path as recorded) out of the cache,
# replay into ROOT with ARGs, its output in OUT; fails unless the replay
# read >= 60 MiB from the filesystem.  Sets rd: the bytes it read.
replay_cold() {
	local t=$1 root=$2 f=$3 out=$4
	shift 4
	mkdir "$root"
	"$IOTAPE" replay "$t" --root "$root" --prepare-only >/dev/null 2>&1 || fail "prepare failed"
	[ -s "$root$f" ] || fail "the starting tree has no $f"
	sync
	drop_pages "$root$f"
	replay_inblock "$t" "$root" "$@" >"$out" 2>&1 || fail "replay failed: $(cat "$out")"
	rd=$(sed -n 's/^inblock //p' "$out")
	[ "$rd" -ge $((60 << 20)) ] ||
		fail "the replay read $rd bytes from the filesystem, not >= 60 MiB: $(cat "$out")"
}

# mk_git_src DIR - a git repository of 40 small files, committed
mk_git_src() {
	local i
	git init -q "$1"
	for i in $(seq 1 40); do echo "line $i" >"$1/f$i"; done
	git -C "$1" add . && git -C "$1" -c user.email=t@t -c user.name=t commit -qm x ||
		fail "git: cannot make the repository to clone"
}

# record_tmp NAME - a new temporary directory $T (tmp_dir's), made the
# current one, and the backends to record with in BACKENDS
record_tmp() {
	tmp_dir "/tmp/iotape-$1"
	cd "$T" || fail "no $T"
	record_backends "$T"
}

# replay_verified B TRACE ROOT OUT - replay TRACE into ROOT with --verify,
# its summary into OUT; fail, naming the recording B, unless the replay
# succeeded with 0 mismatches
replay_verified() {
	"$IOTAPE" replay "$2" --root "$3" --verify >"$4" 2>&1 ||
		fail "$1: replay failed or mismatched: $(grep -A8 '^  mismatches' "$4" | cut -c1-300)"
	grep -q '^  mismatches   0$' "$4" || fail "$1: mismatches: $(grep -A8 '^  mismatches' "$4" | cut -c1-300)"
}

# record_backends DIR - BACKENDS: the ways to record a test program
# with (ptrace with the fast path and without, and bpf where it loads;
# where it does not, the reason is printed); backend_opts B - OPTS: the
# `iotape record` options of way B
record_backends() {
	BACKENDS=(ptrace ptrace-slow)
	! bpf_loads "$1" || BACKENDS+=(bpf)
}

backend_opts() {
	case $1 in
	ptrace) OPTS=(--backend ptrace) ;;
	ptrace-slow) OPTS=(--backend ptrace --no-fastpath) ;;
	bpf) OPTS=(--backend bpf) ;;
	esac
}

# The comparison of record_bpf.sh (and of tests/stress/record_bpf_make.sh,
# which repeats its make): in $d, the test's directory.
# same_record NAME B SETUP CMD - CMD run by sh in a new w/ after SETUP,
# recorded with --backend B into NAME.B.iotape; its dump with the path
# states (NAME.B.txt) and its per-syscall counts (NAME.B.count) beside it
same_record() {
	local name=$1 b=$2 setup=$3 cmd=$4
	rm -rf "$d/w" && mkdir "$d/w" && (cd "$d/w" && eval "$setup") || fail "$name: setup failed"
	(cd "$d/w" && timeout 120 "$IOTAPE" record -q --backend $b -o "$d/$name.$b.iotape" -- \
		sh -c "$cmd" >/dev/null 2>"$d/$name.$b.err") ||
		fail "$name ($b) failed: $(tail -3 "$d/$name.$b.err")"
	# (the pages read through file mappings, taken by ptrace at
	# munmap and exit, are not taken by bpf: record/README.md)
	"$IOTAPE" dump --states "$d/$name.$b.iotape" | grep -v ' mmap pages "' \
		>"$d/$name.$b.txt" || fail "$name: dump failed"
	"$IOTAPE" dump --count "$d/$name.$b.iotape" | awk '{ print $(NF-1), $NF }' |
		sort >"$d/$name.$b.count"
}

# same_cmp NAME A B - do NAME.A's and NAME.B's recordings hold the same
# per-syscall counts (the diff in NAME.cdiff), events and path states
# (trace_cmp.py's word in NAME.cmp)?  Not: the difference on stderr,
# SAME_WHY set, return 1
same_cmp() {
	local name=$1 a=$2 b=$3
	diff "$d/$name.$a.count" "$d/$name.$b.count" >"$d/$name.cdiff" || {
		cat "$d/$name.cdiff" >&2
		SAME_WHY="per-syscall counts differ (< $a, > $b)"
		return 1
	}
	# the programs read no write's buffer: no write is marked zeros
	NO_ZEROS=1 python3 "$SRCDIR/tests/integration/trace_cmp.py" "$d/$name.$a.txt" \
		"$d/$name.$b.txt" "$d/w" "$d" $a $b >"$d/$name.cmp" || {
		cat "$d/$name.cmp" >&2
		SAME_WHY="--backend $b recorded other events"
		return 1
	}
}

# in_scratch PREFIX - d: a new directory PREFIX.XXXXXX, removed at the
# test's exit unless KEEP is set; the test goes on in it
in_scratch() {
	d=$(mktemp -d "$1.XXXXXX") || fail "mktemp -d $1.XXXXXX failed"
	trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
	cd "$d" || fail "cannot enter $d"
}

# need_python - PY: the Python interpreter itself, not a version
# manager's shell shims (their redirections to /dev/null ask TCGETS of a
# descriptor a replay does not have, and their process starts are not the
# test's)
need_python() {
	need_cmd python3
	PY=$(command -v /usr/bin/python3 || command -v python3)
	export PY
}
