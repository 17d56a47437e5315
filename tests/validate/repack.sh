#!/bin/sh
# repack.sh - a git repository repacked and checked: 'git repack -a -d -f'
# of the suite's repository (object reads through mmap, 2 threads
# compressing deltas, a new pack written and renamed into place, the old
# one removed), then 'git fsck' of it; the repository's files only.
. "$(dirname "$0")/lib.sh"
case $1 in
setup) cp -a "$2/repo" repo ;;
run)	mark repack
	git -C repo -c pack.threads=2 repack -q -a -d -f --window=10
	mark fsck
	git -C repo fsck --no-dangling --no-progress >/dev/null
	mark sync
	sync ;;
esac
