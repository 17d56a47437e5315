#!/bin/sh
# gitclone.sh - a local git clone (--no-local: through git's pack protocol,
# as from a server) and checkout: the repository holds the suite's larger
# tree (~4,300 files) in one commit, packed.
. "$(dirname "$0")/lib.sh"
case $1 in
setup) cp -a "$2/repo" repo ;;
run)	mark clone
	git clone -q --no-local repo copy
	mark status
	git -C copy status --porcelain >/dev/null ;;
esac
