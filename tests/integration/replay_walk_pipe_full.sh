#!/bin/bash
# replay_walk_pipe_full.sh - a walk whose calls write into a pipe, and
# whose reader does not wait for every write: `tar c d | cat`, where d
# holds 30 small files and one of 1 MiB that the recording's tmpfs lists
# last and the replay's root lists first.  A read of cat's follows one
# write of tar's (the latest that certainly fits in the pipe with it),
# which stays in its place while the walk's entries move around it; the
# others moved with their entry.  Put first, the big file's 103 writes
# came ahead of the write cat's first read waited for, filled the pipe,
# and tar waited for cat while cat waited for tar: 2 s, given up, and
# every pipe call after it mismatched (tar c into zstd -T2 stalled so,
# one replay in three; this small tree does not fill the pipe so, and
# replayed without 0 mismatches before).  Such a walk must keep its
# recorded order (IOTAPE_REPLAY_WALKS says why), with 0 mismatches and no
# pipe wait given up.  The reader starts 0.2 s late, so that tar fills
# the pipe before any read: a reader already waiting could take each of
# tar's writes as it came (so it did in one recording in 15), and a walk
# whose every write a read follows may be taken in the root's order.
# Needs root (tmpfs mounts).
set -u
. "$(dirname "$0")/lib.sh"
walk_tree walkpipe
head -c 1048576 /dev/urandom >"$A/d/big"
# a tmpfs lists its newest names first: the small files renamed after
# big, so that big comes last
for f in $(cd "$A/d" && ls -d f*); do mv "$A/d/$f" "$A/d/x$f" && mv "$A/d/x$f" "$A/d/$f"; done
ls -f "$A/d" | grep -v "^\.\|^s$" >"$T/recorded"
[ "$(tail -1 "$T/recorded")" = big ] || fail "the recording's tmpfs does not list big last: $(tr '\n' ' ' <"$T/recorded")"
cd "$A" || fail "no $A"
"$IOTAPE" record -q --backend ptrace -o "$T/pipe.iotape" -- sh -c 'tar c d | { sleep 0.2; cat; } >/dev/null' ||
	fail "recording tar c | cat failed"
# the root: the rest in name order, then big, so it lists big first
mkdir -p "$M/R$A/d/s"
cp -p "$A"/d/s/u* "$M/R$A/d/s/"
for f in $(cd "$A/d" && ls -d f*); do cp -p "$A/d/$f" "$M/R$A/d/"; done
cp -p "$A/d/big" "$M/R$A/d/"
[ "$(ls -f "$M/R$A/d" | grep -v '^\.' | head -1)" = big ] ||
	fail "the root does not list big first: nothing to test"
IOTAPE_REPLAY_WALKS=1 replay_clean "tar c | cat" "$T/pipe.iotape" "$M/R" "$T/out" --timing afap --force
grep -q 'waits given up' "$T/out" && { cat "$T/out"; fail "a pipe wait was given up"; }
grep -q "a pipe's or socket's call no other thread waits for" "$T/out" ||
	{ cat "$T/out"; fail "the walk holding writes into the pipe that cat does not wait for was not kept for them"; }
grep -q 'directories walked in the order listed here' "$T/out" &&
	{ cat "$T/out"; fail "a walk holding such writes was taken in the root's order"; }
echo "ok: tar c | cat, its walk holding writes cat does not wait for, kept in the recorded order: 0 mismatches, no pipe wait given up"
