# fidlib.sh - fresh loop filesystems for fidelity measurements (sourced).
# fid_mount FS -> sets FM (mount point); fid_umount tears it down.
# Everything lives under one mktemp -d ($FID_TMP), removed at exit.
FID_TMP=$(mktemp -d ${FID_DIR:-/var/tmp}/fid.XXXXXX)
FID_LOOP=
FM=
FID_SIZE=${FID_SIZE:-4G}
fid_umount() {
	[ -z "$FM" ] || umount "$FM" 2>/dev/null || true
	[ -z "$FID_LOOP" ] || losetup -d "$FID_LOOP" 2>/dev/null || true
	FID_LOOP=
	rm -f "$FID_TMP/img"
}
fid_mount() {
	fid_umount
	FM=$FID_TMP/m
	mkdir -p "$FM"
	case $1 in
	tmpfs) mount -t tmpfs -o size=$FID_SIZE tmpfs "$FM" ;;
	*)	truncate -s $FID_SIZE "$FID_TMP/img"
		FID_LOOP=$(losetup --find --show "$FID_TMP/img")
		case $1 in
		ext4) mkfs.ext4 -F -q "$FID_LOOP" ;; xfs) mkfs.xfs -f -q "$FID_LOOP" ;;
		btrfs) mkfs.btrfs -f -q "$FID_LOOP" >/dev/null ;;
		esac
		mount -t $1 "$FID_LOOP" "$FM" ;;
	esac
}
fid_drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }
fid_finish() { fid_umount; rm -rf "$FID_TMP"; }
trap fid_finish EXIT
trap 'exit 130' INT TERM
now() { date +%s.%N; }
