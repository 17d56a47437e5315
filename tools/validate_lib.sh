# validate_lib.sh - what validate.sh and validate_make.sh share (sourced):
# a fresh filesystem at $M and its teardown, and steady memory on a VM.
# The caller sets NAME (for messages), M (the mount point), IMG (the loop
# image's file) and SIZE (the filesystem's size, as truncate takes it).
LOOP=

# One fresh filesystem of type $1 at $M, empty.
mkfs_mount() {
	case $1 in
	tmpfs) mount -t tmpfs -o size=$SIZE tmpfs $M ;;
	*)	truncate -s $SIZE "$IMG"; LOOP=$(losetup --find --show "$IMG")
		case $1 in
		ext4) mkfs.ext4 -F -q $LOOP ;; xfs) mkfs.xfs -f -q $LOOP ;;
		btrfs) mkfs.btrfs -f -q $LOOP >/dev/null ;; ext2) mkfs.ext2 -F -q $LOOP ;;
		*) echo "$NAME: unknown fs $1" >&2; exit 1 ;;
		esac
		mount -t $1 $LOOP $M ;;
	esac
}

cleanup() {
	umount $M 2>/dev/null || true
	[ -z "$LOOP" ] || losetup -d $LOOP 2>/dev/null || true
	LOOP=
	rm -f "$IMG"
}

# On a VM whose balloon reports free memory to its host (free page
# reporting), memory the guest frees goes back to the host and its next
# use faults there: writing 20 GB to a tmpfs ran at 0.4 GB/s on such
# memory here, so whichever run happens to get it is up to 2x slower (a
# native cp -a of 241 MB took 0.62 to 1.18 s).  steady_memory MB stops the
# reporting until the script ends and touches MB of memory once.
PR=/sys/module/page_reporting/parameters/page_reporting_order
pr_old=
finish() { cleanup; [ -z "$pr_old" ] || echo "$pr_old" >$PR; }
trap finish EXIT
trap 'exit 130' INT TERM
steady_memory() {
	local need=$1 avail
	[ -w $PR ] && [ "$(cat $PR)" -ge 0 ] 2>/dev/null && [ "$(cat $PR)" -le 10 ] || return 0
	pr_old=$(cat $PR)
	echo 11 >$PR		# above the largest order: nothing is reported
	avail=$(awk '/MemAvailable/ { print int($2 / 1024) }' /proc/meminfo)
	[ $need -le $((avail - 1024)) ] || need=$((avail - 1024))
	echo "$NAME: free page reporting to the host stopped until the end (was order $pr_old); touching $need MB once"
	mount -t tmpfs -o size=${need}M tmpfs $M
	dd if=/dev/zero of=$M/touch bs=4M count=$((need / 4)) status=none 2>/dev/null || true
	umount $M
}
