/* route — host_addr_local (platform/host.h): the kernel's route to an address, asked over
 * rtnetlink as `ip route get` asks. A file of its own: the session daemon links it, and
 * host.c's other functions pull in libcap-ng, which the daemon does not link.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "platform/host.h"

/* One RTM_GETROUTE for addr, as `ip route get` asks: the route the kernel would use. */
int host_addr_local(int family, const void *addr)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attr[RTA_SPACE(16)];
	} req;
	union {
		struct nlmsghdr nh;
		char b[4096];
	} ans;
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	size_t alen = family == AF_INET ? 4 : 16;
	struct rtattr *ra = (struct rtattr *)req.attr;
	ssize_t n;
	int fd, rc;

	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.rt)) + RTA_SPACE(alen);
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.rt.rtm_family = (unsigned char)family;
	req.rt.rtm_dst_len = (unsigned char)(alen * 8);
	ra->rta_type = RTA_DST;
	ra->rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(RTA_DATA(ra), addr, alen);
	if ((fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)) < 0)
		return -errno;
	/* the kernel answers a route request before sendto returns */
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0 ||
	    (n = recv(fd, &ans, sizeof(ans), MSG_DONTWAIT)) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	close(fd);
	if (!NLMSG_OK(&ans.nh, (size_t)n))
		return -EPROTO;
	if (ans.nh.nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(&ans.nh);
		if (ans.nh.nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
			return -EPROTO;
		/* no route at all: nothing of this host's is reached there */
		return e->error == -ENETUNREACH || e->error == -EHOSTUNREACH ? 0
		       : e->error < 0					     ? e->error
									     : -EPROTO;
	}
	if (ans.nh.nlmsg_type != RTM_NEWROUTE ||
	    ans.nh.nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
		return -EPROTO;
	switch (((const struct rtmsg *)NLMSG_DATA(&ans.nh))->rtm_type) {
	case RTN_LOCAL:
	case RTN_BROADCAST:
	case RTN_ANYCAST:
	case RTN_MULTICAST:
		return 1;
	default:
		return 0;
	}
}
