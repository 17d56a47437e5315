/*
 * sockdiag.c - which socket connected to a Unix socket, asked of the
 * kernel (NETLINK_SOCK_DIAG, UNIX_DIAG_PEER), as ss -x asks it.  An
 * accepted connection's peer is the connecting socket: the recorder
 * writes its inode with the accept (the bpf backend reads it in the
 * kernel), and the replay asks which of its own connects an accept took.
 */
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine.h"

/* Ask for the Unix socket of inode @ino: its peer's inode (0 if none or
 * unknown), its type into *@type (0 if unknown) */
static uint64_t ask(int *diag_fd, uint64_t ino, int *type)
{
	struct {
		struct nlmsghdr h;
		struct unix_diag_req r;
	} req;
	union { struct nlmsghdr h; char b[1024]; } u;
	struct unix_diag_msg *m;
	struct rtattr *a;
	ssize_t n;
	int len;

	*type = 0;
	if (!ino || ino > UINT32_MAX)
		return 0;
	if (*diag_fd <= 0 &&
	    (*diag_fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) < 0)
		return 0;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.h.nlmsg_flags = NLM_F_REQUEST;
	req.r.sdiag_family = AF_UNIX;
	req.r.udiag_states = ~0u;
	req.r.udiag_ino = (uint32_t)ino;
	req.r.udiag_show = UDIAG_SHOW_PEER;
	req.r.udiag_cookie[0] = req.r.udiag_cookie[1] = ~0u;
	if (send(*diag_fd, &req, sizeof(req), 0) != (ssize_t)sizeof(req) ||
	    (n = recv(*diag_fd, &u, sizeof(u), 0)) < (ssize_t)NLMSG_LENGTH(sizeof(*m)) ||
	    !NLMSG_OK(&u.h, (size_t)n) || u.h.nlmsg_type != SOCK_DIAG_BY_FAMILY)
		return 0;
	m = NLMSG_DATA(&u.h);
	if (m->udiag_ino != (uint32_t)ino)
		return 0;
	*type = m->udiag_type;
	len = (int)(u.h.nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
	for (a = (struct rtattr *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= sizeof(uint32_t))
			return *(uint32_t *)RTA_DATA(a);
	return 0;
}

uint64_t iot_unix_peer(int *diag_fd, uint64_t ino)
{
	int type;

	return ask(diag_fd, ino, &type);
}

int iot_unix_type(int *diag_fd, uint64_t ino)
{
	int type;

	ask(diag_fd, ino, &type);
	return type;
}
