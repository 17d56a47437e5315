#!/bin/sh
# sqlwriters.sh - two sqlite3 clients writing one database at once, as two
# workers of a service do: 400 small transactions each (BEGIN IMMEDIATE,
# an insert and an update, a commit synced through the rollback
# journal), each waiting for the other's write lock in its busy handler
# (fcntl F_SETLK refused, a sleep, again); then a count.
. "$(dirname "$0")/lib.sh"
case $1 in
setup)	sqlite3 db.sqlite 'CREATE TABLE t(id INTEGER PRIMARY KEY, w INTEGER, k INTEGER, v TEXT);
		CREATE INDEX tk ON t(k);' >/dev/null
	for w in 1 2; do
		awk -v w=$w 'BEGIN {
			print ".timeout 20000";
			for (i = 0; i < 400; i++) {
				print "BEGIN IMMEDIATE;";
				printf "INSERT INTO t(w, k, v) VALUES(%d, %d, hex(randomblob(200)));\n", w, (i * 7 + w) % 997;
				printf "UPDATE t SET v = hex(randomblob(100)) WHERE k = %d;\n", (i * 13 + w) % 997;
				print "COMMIT;";
			}
		}' >w$w.sql
	done ;;
run)	mark write
	sqlite3 db.sqlite <w1.sql &
	sqlite3 db.sqlite <w2.sql &
	wait
	mark count
	sqlite3 db.sqlite 'SELECT w, count(*) FROM t GROUP BY w;' >/dev/null ;;
esac
