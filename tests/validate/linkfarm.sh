#!/bin/sh
# linkfarm.sh - a tree of hard links: 'cp -al' of the suite's source tree
# (a link, not a copy, per file), 'du' of it, 'touch' of every header
# through its link (the inode both names share), then 'rm -rf' of the
# original names; then sync.
. "$(dirname "$0")/lib.sh"
case $1 in
setup)	cp -a "$2/src" src ;;
run)	mark link
	cp -al src farm
	mark du
	du -s farm >/dev/null
	find farm -type f -links +1 | wc -l >/dev/null
	mark touch
	find farm -name '*.h' -exec touch {} +
	mark rm
	rm -rf src
	mark sync
	sync ;;
esac
