// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "log.h"
#include "tun.h"

/* linux/if_tun.h from 6.2 on; older headers lack them (the kernel says no). */
#ifdef TUN_F_USO4
#define TUN_USO4 TUN_F_USO4
#define TUN_USO6 TUN_F_USO6
#else
#define TUN_USO4 0x20
#define TUN_USO6 0x40
#endif

static int tun_attach(const char *name, unsigned flags, struct ifreq *ifr)
{
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	memset(ifr, 0, sizeof(*ifr));
	ifr->ifr_flags = IFF_TUN | IFF_NO_PI;
	if (flags & TUN_F_WANT_VNET_HDR)
		ifr->ifr_flags |= IFF_VNET_HDR;
	if (flags & TUN_F_WANT_MULTI_QUEUE)
		ifr->ifr_flags |= IFF_MULTI_QUEUE;
	snprintf(ifr->ifr_name, IFNAMSIZ, "%s", name && *name ? name : "ovl%d");
	if (ioctl(fd, TUNSETIFF, ifr) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

int tun_open(struct tun *tun, const char *name, unsigned flags)
{
	struct ifreq ifr;
	int fd = tun_attach(name, flags, &ifr);

	memset(tun, 0, sizeof(*tun));
	tun->fd = -1;
	if (fd < 0) {
		log_err("cannot create TUN device '%s': %s", name && *name ? name : "ovl%d",
			strerror(-fd));
		return fd;
	}
	tun->fd = fd;
	memcpy(tun->name, ifr.ifr_name, IFNAMSIZ);
	tun->name[IFNAMSIZ - 1] = '\0';
	tun->ifindex = (int)if_nametoindex(tun->name);
	tun->vnet_hdr = (flags & TUN_F_WANT_VNET_HDR) != 0;
	if (tun->vnet_hdr && (flags & TUN_F_WANT_TSO)) {
		/* TSO super-packets and partial checksums: the TX thread segments
		 * and completes them (gso.c). Without it the header stays, plain. */
		unsigned want = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN;
		unsigned uso = TUN_USO4 | TUN_USO6;
		int hdrsz = 10;

		if (ioctl(fd, TUNSETVNETHDRSZ, &hdrsz) < 0) {
			log_warn("%s: TUN offloads refused (%s): no TSO", tun->name,
				 strerror(errno));
		} else if ((flags & TUN_F_WANT_USO) && ioctl(fd, TUNSETOFFLOAD, want | uso) == 0) {
			tun->offloads = want | uso;
		} else if (ioctl(fd, TUNSETOFFLOAD, want) == 0) {
			tun->offloads = want;
			if (flags & TUN_F_WANT_USO)
				log_info("%s: no UDP segmentation offload (USO) on this kernel",
					 tun->name);
		} else {
			log_warn("%s: TUN offloads refused (%s): no TSO", tun->name,
				 strerror(errno));
		}
		if (tun->offloads)
			log_info("%s: TUN offloads: checksum, TSO4/6%s", tun->name,
				 tun->offloads & uso ? ", USO4/6" : "");
	}
	if (!tun->ifindex) {
		int r = -errno;

		tun_close(tun);
		return r ? r : -ENODEV;
	}
	log_info("created TUN device %s (ifindex %d)", tun->name, tun->ifindex);
	return 0;
}

int tun_open_queue(const struct tun *tun)
{
	struct ifreq ifr;

	return tun_attach(tun->name,
			  TUN_F_WANT_MULTI_QUEUE | (tun->vnet_hdr ? TUN_F_WANT_VNET_HDR : 0), &ifr);
}

void tun_close(struct tun *tun)
{
	if (tun->fd >= 0)
		close(tun->fd);
	tun->fd = -1;
}

bool tun_has_uso(const struct tun *tun)
{
	return (tun->offloads & (TUN_USO4 | TUN_USO6)) == (TUN_USO4 | TUN_USO6);
}

ssize_t tun_read(const struct tun *tun, void *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(tun->fd, buf, len);

		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN ? 0 : -errno;
	}
}

int tun_write(const struct tun *tun, const void *buf, size_t len)
{
	for (;;) {
		ssize_t n = write(tun->fd, buf, len);

		if (n >= 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}
