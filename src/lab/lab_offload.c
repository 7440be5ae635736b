// SPDX-License-Identifier: MIT
/*
 * Segmentation offloads off on lossy lab links. nftables sees a TSO/GSO
 * packet (up to 64 KB of TCP, or a UDP_SEGMENT batch) as one packet, and TCP
 * builds such aggregates whatever the device says. With every
 * "*-segmentation" feature, GSO lists and GRO off on the veth, the kernel
 * segments in software before the veth, so the peer receives MTU-sized
 * packets and a random drop on its ingress hits single segments, as on a
 * real lossy link. ETHTOOL_SFEATURES by name, so new kernel features (e.g.
 * tx-tcp-accecn-segmentation) are covered too. Runs in the calling thread's
 * namespace.
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lab_int.h"
#include "log.h"

static int ethtool(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

static bool unwanted(const char *name)
{
	size_t n = strlen(name);
	static const char suffix[] = "-segmentation";

	if (n >= sizeof(suffix) - 1 && !strcmp(name + n - (sizeof(suffix) - 1), suffix))
		return true;
	return !strcmp(name, "tx-gso-list") || !strcmp(name, "rx-gro") ||
	       !strcmp(name, "rx-gro-list") || !strcmp(name, "rx-udp-gro-forwarding");
}

static int feature_count(int fd, const char *ifname, uint32_t *n)
{
	/* struct ethtool_sset_info ends in a flexible array: one entry here. */
	uint64_t buf[(sizeof(struct ethtool_sset_info) + sizeof(uint32_t) + 7) / 8] = { 0 };
	struct ethtool_sset_info *info = (struct ethtool_sset_info *)buf;
	int rc;

	info->cmd = ETHTOOL_GSSET_INFO;
	info->sset_mask = 1ULL << ETH_SS_FEATURES;
	rc = ethtool(fd, ifname, info);
	if (rc)
		return rc;
	if (!(info->sset_mask & (1ULL << ETH_SS_FEATURES)) || info->data[0] == 0 ||
	    info->data[0] > 4096)
		return -EOPNOTSUPP;
	*n = info->data[0];
	return 0;
}

/* Clears the unwanted features' bits in a ETHTOOL_SFEATURES request. */
static int build_request(int fd, const char *ifname, uint32_t n, struct ethtool_sfeatures *sf)
{
	struct ethtool_gstrings *gs = calloc(1, sizeof(*gs) + (size_t)n * ETH_GSTRING_LEN);
	int rc;

	if (!gs)
		return -ENOMEM;
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_FEATURES;
	gs->len = n;
	rc = ethtool(fd, ifname, gs);
	for (uint32_t i = 0; !rc && i < n; i++) {
		char name[ETH_GSTRING_LEN + 1];

		memcpy(name, gs->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN] = '\0';
		if (unwanted(name)) {
			sf->features[i / 32].valid |= 1U << (i % 32);
			sf->features[i / 32].requested &= ~(1U << (i % 32));
		}
	}
	free(gs);
	return rc;
}

int lab_offload_off(const char *ifname)
{
	struct ethtool_sfeatures *sf = NULL;
	uint32_t n = 0, blocks;
	int fd, rc;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = feature_count(fd, ifname, &n);
	if (!rc) {
		blocks = (n + 31) / 32;
		sf = calloc(1, sizeof(*sf) + blocks * sizeof(sf->features[0]));
		rc = sf ? 0 : -ENOMEM;
	}
	if (!rc) {
		sf->cmd = ETHTOOL_SFEATURES;
		sf->size = blocks;
		rc = build_request(fd, ifname, n, sf);
	}
	/* A positive return flags features the driver could not change
	 * (fixed ones); the ioctl wrapper reports only real errors. */
	if (!rc)
		rc = ethtool(fd, ifname, sf);
	if (rc)
		log_err("%s: cannot turn segmentation offloads off: %s", ifname, strerror(-rc));
	free(sf);
	close(fd);
	return rc;
}
