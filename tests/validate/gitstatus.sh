#!/bin/sh
# gitstatus.sh - a work tree looked over: 'git status' (every file's
# attributes against the index, which git reads through a mapping) after
# 40 files were changed, 'git diff --stat' of them, and 'git add -A' and
# 'git status' again; ~4,600 files.
. "$(dirname "$0")/lib.sh"
case $1 in
setup)	cp -a "$2/repo" repo
	find repo -name '*.py' | head -n 40 | while read -r f; do echo '# changed' >>"$f"; done ;;
run)	cd repo
	mark status
	git status --porcelain >/dev/null
	mark diff
	git diff --stat >/dev/null
	mark add
	git add -A
	git status --porcelain >/dev/null ;;
esac
