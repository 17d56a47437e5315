#!/bin/sh
# sqlmmap.sh - sqlite3 reading through a file mapping: a 20 MiB database
# in WAL mode with 'PRAGMA mmap_size', 2,000 indexed look-ups and seven full
# scans read through the mapping, then 300 small transactions written
# through the WAL and a checkpoint.
. "$(dirname "$0")/lib.sh"
case $1 in
setup)	awk 'BEGIN {
		print "PRAGMA journal_mode=WAL;";
		print "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT);";
		print "BEGIN;";
		for (i = 0; i < 40000; i++)
			printf "INSERT INTO t(k, v) VALUES(%d, hex(randomblob(240)));\n", (i * 7919) % 50021;
		print "COMMIT;";
		print "CREATE INDEX tk ON t(k);";
	}' | sqlite3 db.sqlite >/dev/null
	awk 'BEGIN {
		print "PRAGMA mmap_size=268435456;";
		for (i = 0; i < 2000; i++)
			printf "SELECT count(*), sum(length(v)) FROM t WHERE k = %d;\n", (i * 251) % 50021;
		for (i = 0; i < 6; i++)
			printf "SELECT count(*) FROM t WHERE v LIKE \"%%%X%X%%\";\n", i, 15 - i;
		print "SELECT k, count(*) FROM t GROUP BY k % 97;";
	}' >read.sql
	awk 'BEGIN {
		print "PRAGMA mmap_size=268435456;";
		for (i = 0; i < 300; i++)
			printf "UPDATE t SET v = hex(randomblob(120)) WHERE k = %d;\n", (i * 131) % 50021;
		print "PRAGMA wal_checkpoint(TRUNCATE);";
	}' >write.sql ;;
run)	mark read
	sqlite3 db.sqlite <read.sql >/dev/null
	mark write
	sqlite3 db.sqlite <write.sql >/dev/null ;;
esac
