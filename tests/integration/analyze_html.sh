#!/bin/bash
# analyze_html.sh - the HTML report is one self-contained page: no network
# references, opens in headless Chromium without console errors, and its
# script (run after rendering) sets the title to "ok".  The screenshot is
# kept in $BUILD/test-artifacts/.
set -u
d=$DATA/analyze
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
art=$SRCDIR/$BUILD/test-artifacts
mkdir -p "$art"

"$IOTAPE" diff "$d/moz-ext4.iotape" "$d/moz-xfs.1.iotape" "$d/moz-xfs.2.iotape" \
	"$d/moz-xfs.3.iotape" "$d/moz-btrfs-errors.iotape" --html "$out/r.html" >/dev/null || exit 1
"$IOTAPE" report "$d/moz.iotape" "$d/marks.iotape" --html "$out/r2.html" >/dev/null || exit 1
for f in "$out/r.html" "$out/r2.html"; do
	grep -qiE '(src|href)="?(https?:)?//' "$f" && { echo "FAIL: $f references the network"; exit 1; }
	grep -q '<svg' "$f" || { echo "FAIL: $f has no plots"; exit 1; }
done

# chromium is installed by 'make check' (tools/deps.sh check)
browser=$(command -v chromium || command -v chromium-browser) ||
	{ echo "FAIL: chromium is not installed (as root: apt-get install chromium)"; exit 1; }
cp "$out/r.html" "$art/analyze-report.html"
run() {	# extra args...
	local ud; ud=$(mktemp -d)
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$ud" --enable-logging=stderr --v=0 --window-size=1280,900 "$@"
	local rc=$?
	rm -rf "$ud"
	return $rc
}
for f in r r2; do
	run --screenshot="$art/analyze-$f.png" "file://$out/$f.html" >/dev/null 2>"$out/$f.log" || {
		echo "FAIL: chromium exited $?"; tail "$out/$f.log"; exit 1; }
	[ -s "$art/analyze-$f.png" ] || { echo "FAIL: no screenshot"; exit 1; }
	if grep -E 'CONSOLE|Uncaught' "$out/$f.log"; then
		echo "FAIL: console messages from $f.html"; exit 1
	fi
	run --dump-dom "file://$out/$f.html" 2>/dev/null > "$out/$f.dom"
	grep -q '<title>ok</title>' "$out/$f.dom" || {
		echo "FAIL: $f.html: the page script did not run"; exit 1; }
done
echo "html ok; screenshots in $art"
