#!/bin/sh
# gitswitch.sh - a work tree switched between two branches: 'git switch'
# to a branch where 300 files differ, 60 are gone and 60 are new, and back
# again (every changed file written anew, the gone ones removed and the
# index rewritten; ~4,600 files).
. "$(dirname "$0")/lib.sh"
case $1 in
setup)	cp -a "$2/repo" repo
	cd repo
	git switch -q -c alt
	find . -path ./.git -prune -o -type f -name '*.py' -print | sort | head -n 420 >../list
	head -n 300 ../list | while read -r f; do echo '# alt' >>"$f"; done
	sed -n 301,360p ../list | xargs rm -f
	sed -n 361,420p ../list | while read -r f; do cp "$f" "$f.new"; done
	git add -A
	git -c user.name=suite -c user.email=suite@localhost commit -q -m alt
	git switch -q master 2>/dev/null || git switch -q main ;;
run)	cd repo
	mark switch
	git switch -q alt
	mark back
	git switch -q - ;;
esac
