#!/bin/sh
# sqlite.sh - sqlite3 transactions: 1,500 small transactions (an insert of
# 4 rows and an update each, every commit synced through the rollback
# journal), then a query over an index and a VACUUM.
. "$(dirname "$0")/lib.sh"
case $1 in
setup)	awk 'BEGIN {
		print "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT);";
		print "CREATE INDEX tk ON t(k);";
		for (i = 0; i < 800; i++) {
			print "BEGIN;";
			for (j = 0; j < 4; j++)
				printf "INSERT INTO t(k, v) VALUES(%d, hex(randomblob(200)));\n", (i * 7 + j) % 997;
			printf "UPDATE t SET v = hex(randomblob(100)) WHERE k = %d;\n", i % 997;
			print "COMMIT;";
		}
	}' >tx.sql
	printf 'SELECT k, count(*), sum(length(v)) FROM t GROUP BY k;\nVACUUM;\n' >q.sql ;;
run)	mark transactions
	sqlite3 db.sqlite <tx.sql
	mark query
	sqlite3 db.sqlite <q.sql >/dev/null ;;
esac
