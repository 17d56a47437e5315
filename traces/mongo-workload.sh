#!/bin/sh
# mongo-workload.sh WORK [FILES] - a small-file workload after the mongo
# benchmark's phases (seed 002): create FILES files (default 20000) of
# mongo's size mix in a tree of directories, copy the tree, symlink every
# file, read every file, stat every file, rename every file, delete all.
# File operations run inside one perl process per phase (perl-base is
# always installed on Debian), as mongo's own C loops did.
set -e
WORK=$1
N=${2:-20000}
mkdir -p "$WORK"
cd "$WORK"
# create: sizes drawn from mongo's mix (mostly 100 B - 10 KiB, some larger)
perl -e '
	my ($n) = @ARGV; srand(42);
	my @sizes = (100, 100, 100, 1000, 1000, 4096, 10000, 10000, 30000, 100000);
	my $buf = "x" x 100000;
	for my $i (0 .. $n - 1) {
		my $d = sprintf("d%03d", $i % 200);
		mkdir $d unless -d $d;
		open(my $f, ">", "$d/f$i") or die "$d/f$i: $!";
		print $f substr($buf, 0, $sizes[int(rand(@sizes))]);
		close $f;
	}' "$N"
cd "$WORK/.." && cp -a "$WORK" "$WORK.copy" && cd "$WORK"
perl -e 'for my $f (glob("d*/f*")) { symlink("../$f", "$f.lnk") or die "$f: $!" }'
perl -e 'my $b; for my $f (glob("d*/f*")) { next if $f =~ /\.lnk$/; open(my $h, "<", $f) or die; 1 while sysread($h, $b, 65536); close $h }'
perl -e 'for my $f (glob("d*/f*")) { my @s = lstat($f) or die "$f: $!" }'
perl -e 'for my $f (glob("d*/f*")) { next if $f =~ /\.lnk$/; rename($f, "$f.r") or die "$f: $!" }'
rm -rf "$WORK.copy" "$WORK"/d*
