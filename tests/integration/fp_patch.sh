#!/bin/bash
# fp_patch.sh - the fast path's patching of libc's internal call sites
# (record/fastpath/patch.c).
#
# 1. Each site the library patched (IOTAPE_FAST_PATCHLOG) is, in objdump's
#    reading of this libc, an instruction start: mov $NR,%eax (xor %eax,
#    %eax for read) then syscall, and no direct jump or call in libc lands
#    inside the bytes replaced.
# 2. Programs doing their I/O through stdio (sed, sort, awk, gzip) work
#    the same patched, and record the same events with the patch, without
#    it (IOTAPE_FAST_NOPATCH=1) and with --no-fastpath; patched, more of
#    their calls are logged in-process.
set -u
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/record_lib.sh"
need_ptrace
need_cmd python3
need_cmd objdump
need_fastpath_lib
d=$(mktemp -d /tmp/iotape-patch.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"
export LC_ALL=C
seq 1 100000 >big
work="sed -n p big >out.sed; sort -rn big >out.sort; awk '\$1 % 7 == 0 { n++ } END { print n }' big >out.awk; gzip -c big >out.gz"

# (the summary goes to one file name each time: the programs inherit it)
IOTAPE_FAST_PATCHLOG=$d/sites timeout 120 "$IOTAPE" record --backend ptrace -o p.iotape -- sh -c "$work" 2>err ||
	fail "record (patched) failed: $(cat err)"
mv err err.p
[ -s sites ] || fail "no libc site was patched (IOTAPE_FAST_PATCHLOG empty)"
cmp -s big out.sed || fail "sed's output differs under the patched libc"
[ "$(head -1 out.sort)" = 100000 ] && [ "$(tail -1 out.sort)" = 1 ] || fail "sort's output is wrong"
[ "$(cat out.awk)" = 14285 ] || fail "awk's count is wrong: $(cat out.awk)"
gzip -dc out.gz | cmp -s - big || fail "gzip's output is wrong"

libc=$(ldd /bin/sed | awk '/libc\.so\.6/ { print $3 }')
[ -f "$libc" ] || fail "cannot find sed's libc"
objdump -d "$libc" >libc.dis
sort -u sites >sites.u
python3 - libc.dis sites.u <<'PY' || fail "a patched site is not a plain syscall sequence"
import re, sys
insn, targets = {}, set()
for l in open(sys.argv[1]):
    m = re.match(r'^\s+([0-9a-f]+):\t(?:[0-9a-f]{2} )+\s*\t?(.*)$', l.rstrip('\n'))
    if not m:
        continue
    a, t = int(m.group(1), 16), m.group(2).strip()
    insn[a] = t
    b = re.match(r'^(j[a-z]+|call)\s+([0-9a-f]+)\b', t)
    if b:
        targets.add(int(b.group(2), 16))
bad = 0
for l in open(sys.argv[2]):
    off, n, nr = (int(l.split()[0], 16), int(l.split()[1]), int(l.split()[2]))
    first = insn.get(off, '')
    ok = (first == 'xor    %eax,%eax') if n == 10 else first == 'mov    $0x%x,%%eax' % nr
    nxt = insn.get(off + (2 if n == 10 else 5), '')
    if not ok or nxt != 'syscall':
        print('site %x: %r, %r' % (off, first, nxt)); bad += 1
    inside = [t for t in targets if off < t < off + n]
    if inside:
        print('site %x: jumped into at %s' % (off, [hex(t) for t in inside])); bad += 1
print('%d sites checked' % sum(1 for _ in open(sys.argv[2])))
sys.exit(1 if bad else 0)
PY

# the same events three ways (from the identical starting files)
rm -f out.*
IOTAPE_FAST_NOPATCH=1 timeout 120 "$IOTAPE" record --backend ptrace -o n.iotape -- sh -c "$work" 2>err ||
	fail "record (not patched) failed: $(cat err)"
mv err err.n
rm -f out.*
timeout 120 "$IOTAPE" record --backend ptrace --no-fastpath -o s.iotape -- sh -c "$work" 2>err ||
	fail "record --no-fastpath failed: $(cat err)"
ev() {	# the calls on files in $d, per program, without times and pids
	"$IOTAPE" dump -y "$1" | grep -v '^#' | untimed | sed -E 's/0x[0-9a-f]+/ADDR/g' |
		grep -F "$d" | grep -v '^---\|^+++'
}
ev p.iotape >p.ev; ev n.iotape >n.ev; ev s.iotape >s.ev
[ "$(wc -l <p.ev)" -gt 100 ] || fail "too few calls on the test files: $(wc -l <p.ev)"
diff -q p.ev s.ev >/dev/null || { diff p.ev s.ev | head -5; fail "patched and --no-fastpath record different calls"; }
diff -q p.ev n.ev >/dev/null || { diff p.ev n.ev | head -5; fail "patched and unpatched record different calls"; }
share() { sed -nE 's/.*\(([0-9.]+)% in-process, [0-9]+ ptrace stops\).*/\1/p' "$1"; }
python3 -c "import sys; sys.exit(0 if float('$(share err.p)') > float('$(share err.n)') + 10 else 1)" ||
	fail "patching did not log more calls in-process: $(share err.p)% vs $(share err.n)%"
exit 0
