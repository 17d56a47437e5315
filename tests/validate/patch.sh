#!/bin/sh
# patch.sh - a source patch and its reversal: 'patch -p1' of a unified
# diff that changes one file in nine of the suite's source tree and adds
# a directory of new files (patch writes each changed file anew and
# renames it over the old one), then 'patch -R' of it, then 'diff -r'
# of the result against a pristine copy; then sync.
. "$(dirname "$0")/lib.sh"
case $1 in
setup)	cp -a "$2/src" a
	cp -a a b
	find b -type f -name '*.h' | sort | awk 'NR % 9 == 0' |
		xargs sed -i -e '1i /* patched */' -e 's/^#define /#  define /'
	mkdir -p b/added
	for i in $(seq 1 60); do seq "$i" 400 >b/added/f$i.txt; done
	diff -ruN --no-dereference a b >p.diff || [ $? = 1 ]
	rm -rf b
	cp -a a pristine ;;
run)	mark patch
	(cd a && patch -p1 -s <../p.diff)
	mark reverse
	(cd a && patch -p1 -R -s -E <../p.diff)
	mark diff
	diff -r --no-dereference a pristine >/dev/null
	mark sync
	sync ;;
esac
