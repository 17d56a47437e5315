#!/bin/sh
# deps.sh WHAT - make sure the Debian packages WHAT needs are installed.
# As root, installs what is missing with apt-get; otherwise prints the
# exact command to run and fails.
set -u
what=${1:-build}
pkgs="libzstd-dev libprotobuf-c-dev protobuf-c-compiler pkg-config gcc make liburing-dev"
case "$what" in
build) ;;
check) pkgs="$pkgs libbpf-dev bpftool busybox-static golang-go libcmocka-dev protobuf-compiler
	strace zstd xfsprogs btrfs-progs e2fsprogs tar util-linux valgrind clang python3 procps
	binutils gzip libfuse3-dev fuse3 fio sqlite3 git time chromium openmpi-bin libopenmpi-dev rsync
	libc6-i386" ;;
bench) pkgs="$pkgs libbpf-dev bpftool clang busybox-static strace zstd bc git linux-source-6.1 xfsprogs btrfs-progs e2fsprogs fio time postmark" ;;
demo)  pkgs="$pkgs xfsprogs btrfs-progs e2fsprogs" ;;
validate) pkgs="$pkgs python3 linux-source-6.1 xfsprogs btrfs-progs e2fsprogs" ;;
suite) pkgs="$pkgs python3 xfsprogs btrfs-progs e2fsprogs postmark git python3.11 sqlite3 fio xz-utils tar rsync perl-modules-5.36 linux-libc-dev libstdc++-12-dev golang-go zip unzip grep findutils zstd coreutils openjdk-17-jdk-headless patch diffutils" ;;
*) echo "deps.sh: unknown set '$what'" >&2; exit 2 ;;
esac
# The bpf backend's build tools: installed as root; without them the
# build leaves the backend out (the Makefile says so), so a user's build
# does not stop for them.
if [ "$what" = build ] && [ "$(id -u)" = 0 ]; then
	pkgs="$pkgs libbpf-dev bpftool clang"
fi
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "iotape: missing packages:$missing" >&2
	echo "iotape: run as root:  apt-get install -y$missing" >&2
	exit 1
fi
echo "  APT     $missing"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp /tmp/iotape-apt.XXXXXX.log)
if ! apt-get install -y -q -o DPkg::Lock::Timeout=300 --no-install-recommends $missing >"$log" 2>&1; then
	apt-get update -q >>"$log" 2>&1
	if ! apt-get install -y -q -o DPkg::Lock::Timeout=300 --no-install-recommends $missing >>"$log" 2>&1; then
		echo "iotape: apt-get install$missing failed; see $log" >&2
		tail -5 "$log" >&2
		exit 1
	fi
fi
rm -f "$log"
exit 0
