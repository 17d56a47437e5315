#!/bin/sh
# mkcorrupt.sh - make damaged and foreign files for iotape's bad-input tests.
#
#   tools/mkcorrupt.sh crafted DIR
#       write the hand-made files that need the zstd CLI (kept in tests/data/):
#         bad-newer-major.iotape  a valid frame whose Header says format 2.0
#         bad-magic.iotape        a valid frame whose Header magic is "iotapX"
#         not-iotape.zst          a zstd file of plain text
#   tools/mkcorrupt.sh truncate FILE OFFSET OUT   the first OFFSET bytes
#   tools/mkcorrupt.sh flip FILE OFFSET OUT       byte OFFSET inverted
#   tools/mkcorrupt.sh garbage SIZE OUT           SIZE pseudo-random bytes
#                                                 (fixed seed: reproducible)
#   tools/mkcorrupt.sh chunk-end FILE             the offset where the index
#                                                 trailer starts (size if none)
set -eu

# A Header record as the first frame holds it: tag 0x0a, length, Record
# { header (field 1) { magic (1) = $1, format_major (2) = $2 } }.
header_frame() {	# magic(6 chars) major out
	printf "\\012\\016\\012\\014\\012\\006$1\\020\\00$2\\030\\000" >"$3.raw"
	zstd -q -f --check "$3.raw" -o "$3"
	rm -f "$3.raw"
}

case ${1:-} in
crafted)
	d=$2
	command -v zstd >/dev/null || { echo "mkcorrupt: zstd is not installed" >&2; exit 1; }
	header_frame iotape 2 "$d/bad-newer-major.iotape"
	header_frame iotapX 1 "$d/bad-magic.iotape"
	printf 'this is a zstd file, but not an iotape trace\n' >"$d/not-iotape.txt"
	zstd -q -f --check "$d/not-iotape.txt" -o "$d/not-iotape.zst"
	rm -f "$d/not-iotape.txt"
	;;
truncate)
	head -c "$3" "$2" >"$4"
	;;
flip)
	cp "$2" "$4"
	b=$(od -An -tu1 -j "$3" -N1 "$2" | tr -d ' ')
	printf "$(printf '\\%03o' $((255 - b)))" |
		dd of="$4" bs=1 seek="$3" conv=notrunc status=none
	;;
garbage)
	LC_ALL=C awk -v n="$2" 'BEGIN { srand(7); for (i = 0; i < n; i++) printf "%c", int(rand() * 256) }' \
		>"$3"
	;;
chunk-end)
	size=$(wc -c <"$2")
	if [ "$(tail -c 4 "$2")" = IOTX ]; then
		ilen=$(tail -c 8 "$2" | od -An -tu4 -N4 | tr -d ' ')
		echo $((size - ilen - 16))
	else
		echo "$size"
	fi
	;;
*)
	sed -n '2,/^set/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
esac
