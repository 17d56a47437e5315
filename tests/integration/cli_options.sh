#!/bin/bash
# cli_options.sh - every option a command accepts is in its --help and in
# its part of iotape(1), and neither lists one it does not accept.  What
# it accepts is read from the command's source: the getopt_long table and
# the short options (-h/--help left out: iotape(1) names them once, in
# the synopsis).  --help gives the options at the start of its indented
# lines; iotape(1) at the head of its .TP items under "iotape COMMAND".
# The commands themselves: the table of cli/main.c, 'iotape --help' and
# the sections of iotape(1) agree.
set -u
. "$SRCDIR/tests/integration/lib.sh"
command -v python3 >/dev/null || fail "python3 is missing (tools/deps.sh check installs it)"
"$IOTAPE" --help >/dev/null || fail "iotape --help exited $?"

python3 - "$IOTAPE" "$SRCDIR" <<'PY' || fail "the options listed and those accepted differ (above)"
import glob, os, re, subprocess, sys

iotape, src = sys.argv[1], sys.argv[2]
OPT = r"(?<![\w-])(--?[A-Za-z][\w-]*)"
bad = 0

def say(cmd, what, opts):
    global bad
    if opts:
        bad = 1
        print(f"FAIL: {cmd}: {what}: {' '.join(sorted(opts))}")

main = open(os.path.join(src, "cli/main.c")).read()
cmds = re.findall(r'\{ "([a-z]+)",\s*cmd_\1,', main)
if len(cmds) < 5:
    print(f"FAIL: cli/main.c: found only the commands {cmds}")
    sys.exit(1)
top = subprocess.run([iotape, "--help"], capture_output=True, text=True).stdout
listed = re.findall(r"^  ([a-z]+)  +\S", top, re.M)
say("iotape --help", "commands not listed", set(cmds) - set(listed))
say("iotape --help", "commands listed that do not exist", set(listed) - set(cmds))

man = open(os.path.join(src, "man/iotape.1")).read()
parts = re.split(r'^\.SS "iotape ([a-z]+)"\n', man, flags=re.M)
sections = {parts[i]: re.split(r"^\.SH ", parts[i + 1], flags=re.M)[0]
            for i in range(1, len(parts), 2)}
say("iotape(1)", "commands without a section", set(cmds) - set(sections))
say("iotape(1)", "sections of no command", set(sections) - set(cmds))

for cmd in cmds:
    files = [f for f in glob.glob(os.path.join(src, "*/*.c"))
             if re.search(rf"^int cmd_{cmd}\(", open(f).read(), re.M)]
    if len(files) != 1:
        say(cmd, "no single source file defines cmd_" + cmd, {str(files)})
        continue
    # the command's file and those beside it named after it
    # (cmd_record_opts.c)
    code_src = "".join(open(f).read() for f in [files[0]] + sorted(glob.glob(
        os.path.join(os.path.dirname(files[0]), f"cmd_{cmd}_*.c"))))
    code = {"--" + n for n in re.findall(
        r'\{\s*"([a-z0-9-]+)",\s*(?:no|required|optional)_argument', code_src)}
    short = re.search(r'getopt_long\([^,]+,[^,]+,\s*"([^"]*)"', code_src)
    if not short or not code:
        say(cmd, "no getopt_long table found in", {files[0]})
        continue
    code |= {"-" + c for c in short.group(1) if c.isalnum()}
    code -= {"-h", "--help"}

    out = subprocess.run([iotape, cmd, "--help"], capture_output=True, text=True)
    if out.returncode != 0:
        say(cmd, "--help exited", {str(out.returncode)})
    helped = set()
    for line in out.stdout.splitlines():
        if re.match(r"^ {1,8}-", line):
            helped |= set(re.findall(OPT, re.split(r"\s{2,}", line.strip())[0]))
    helped -= {"-h", "--help"}

    lines = sections.get(cmd, "").splitlines()
    manned = set()
    for i, line in enumerate(lines[:-1]):
        if line == ".TP":
            head = re.sub(r"\\f[BIRP]", "", lines[i + 1]).replace("\\-", "-")
            manned |= set(re.findall(OPT, head))

    say(cmd, "accepted, not in --help", code - helped)
    say(cmd, "in --help, not accepted", helped - code)
    say(cmd, "accepted, not in iotape(1)", code - manned)
    say(cmd, "in iotape(1), not accepted", manned - code)
    if not bad:
        print(f"ok: {cmd}: {len(code)} options, in --help and iotape(1)")
sys.exit(bad)
PY
echo ok
