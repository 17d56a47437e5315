#!/usr/bin/env python3
# trace_cmp.py A.txt B.txt WDIR OWN [NAME_A NAME_B] - do two `iotape dump
# --states` outputs of one workload hold the same events and path states?
# Per thread, the sequence of its lines; threads matched by content (pids
# differ, and so may the order in which threads start).  Times, pids,
# addresses, pipe inodes, gcc's temp names, WDIR and OWN (the test's own
# directory) are masked; only the states of the program's own paths are
# compared; NO_ZEROS=1 leaves out the mark of writes of zeros (the bpf
# backend reads no buffer and marks none).  Exit 1 with the first
# difference printed.
import os, re, sys
A = sys.argv[5] if len(sys.argv) > 5 else "A"
B = sys.argv[6] if len(sys.argv) > 6 else "B"
def load(path, wdir, own):
    threads, states = {}, []
    for line in open(path, errors="replace"):
        line = line.rstrip("\n").replace(wdir, "@W@").replace(own, "@D@")
        # (gcc's temporary names first: "0x" may be part of one)
        line = re.sub(r"/tmp/cc[A-Za-z0-9]{6}\.", "/tmp/ccXXXXXX.", line)
        line = re.sub(r"0x[0-9a-f]+", "ADDR", line)
        line = re.sub(r"pipe:\[[0-9]+\]", "pipe:[N]", line)
        line = re.sub(r"(parent|thread of|from thread|pid) [0-9]+", r"\1 N", line)
        m = re.match(r"^#\s+[0-9.]+ state (.*)$", line)
        if m:
            # only the states of the program's own paths: the rest of
            # the machine is not the same from one run to the next
            if re.match(r'"(@W@|@D@|/tmp/ccXXXXXX\.)', m.group(1)):
                states.append(m.group(1))
            continue
        if line.startswith("#"):
            continue
        m = re.match(r"^([0-9]+) +[0-9.]+ (.*?)( <[0-9.]+>)?( \[on cpu [0-9.]+\])?( \[zeros\])?( \[slept before [0-9.]+\])?( \[woken [0-9.]+ before\])?( \[waited [0-9.]+\])?( \[ready [0-9.]+\])?( \[gap woken by [0-9]+\])?( \[woken by [0-9]+\])?$", line)
        if m:
            body = m.group(2) + ("" if os.environ.get("NO_ZEROS") == "1" else m.group(5) or "")
            # pages of a mapping of a file that is not the program's own
            # (the loader's ld.so.cache, locale files) are those the
            # kernel mapped, fault-around included: that depends on what
            # the page cache holds, not on the program
            if body.startswith("  mmap pages \"") and not re.match(r'  mmap pages "(@W@|@D@)', body):
                body = re.sub(r"\b[0-9]+\b", "N", body)
            if re.match(r"(v?fork|clone3?|wait4|kill|tgkill)\(", body):
                body = re.sub(r"\b[0-9]{2,}\b", "N", body)
            # process lines ("--- exec", "+++ exited") are placed by
            # chunk, not by time, in a dump: compared in their own order
            key = m.group(1) + ("p" if body[:4] in ("--- ", "+++ ") else "e")
            threads.setdefault(key, []).append(body)
    seqs = {}
    for k, v in threads.items():
        seqs.setdefault(k[:-1], {})[k[-1]] = "\n".join(v)
    return sorted(x.get("p", "") + "\n" + x.get("e", "") for x in seqs.values()), sorted(states)
a_t, a_s = load(sys.argv[1], sys.argv[3], sys.argv[4])
b_t, b_s = load(sys.argv[2], sys.argv[3], sys.argv[4])
bad = 0
if not a_s or not b_s:
    print("no state of the program's own paths: %d %s, %d %s" % (len(a_s), A, len(b_s), B))
    bad = 1
if a_s != b_s:
    sa, sb = set(a_s), set(b_s)
    print("path states differ:", "\n  only " + A + ":", sorted(sa - sb)[:10],
          "\n  only " + B + ":", sorted(sb - sa)[:10])
    bad = 1
if a_t != b_t:
    import difflib
    print("events differ (%d threads vs %d)" % (len(a_t), len(b_t)))
    for x, y in zip(a_t, b_t):
        if x != y:
            print("\n".join(list(difflib.unified_diff(x.split("\n"), y.split("\n"),
                  A, B, lineterm=""))[:40]))
            break
    bad = 1
print("%d threads, %d events, %d states" % (len(a_t), sum(t.count("\n") + 1 for t in a_t), len(a_s)))
sys.exit(bad)
