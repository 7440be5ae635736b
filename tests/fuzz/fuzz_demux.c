// SPDX-License-Identifier: MIT
/*
 * What anyone may send to the server's one port: arbitrary first bytes of a
 * TCP connection or a whole datagram, classified and, when they look like a
 * greeting, decoded and claimed against a registry holding a TCP test, a
 * UDP test and an MTU session. Only the exact greeting of a registered test
 * may be accepted; every other input must be refused without reading past
 * its end.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data_registry.h"

static struct data_registry *reg;
/* the registered secrets: a test's cookie, the MTU token (8 bytes, padded) */
static uint8_t cookie[PROTO_COOKIE_LEN], token[PROTO_COOKIE_LEN];

static void setup(void)
{
	struct sockaddr_storage peer = { .ss_family = AF_INET };
	struct data_reg_entry *e;
	struct data_claim k = { .kind = DATA_REG_TCP, .test_id = 1 };

	((struct sockaddr_in *)&peer)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (data_registry_new(5211, &reg) < 0)
		abort();
	memset(cookie, 0x11, sizeof(cookie));
	memset(token, 0x22, 8);
	memcpy(k.secret, cookie, sizeof(k.secret));
	data_registry_add(reg, &k, 4, &peer, &e);
	k.kind = DATA_REG_UDP;
	k.test_id = 2;
	data_registry_add(reg, &k, 4, &peer, &e);
	k = (struct data_claim){ .kind = DATA_REG_MTU };
	memcpy(k.secret, token, sizeof(k.secret));
	data_registry_add(reg, &k, 1, &peer, &e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_storage from = { .ss_family = AF_INET };
	struct data_claim c;
	enum data_demux what;
	size_t need;
	int rc;

	if (!reg)
		setup();
	((struct sockaddr_in *)&from)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	what = data_demux_classify(data, size, &need);
	if (what != DATA_DEMUX_DATA && what != DATA_DEMUX_MTU)
		return 0;
	if (size < need)
		return 0;
	for (int udp = 0; udp < 2; udp++) {
		if (!data_demux_claim(what, udp, data, need, &from, &c))
			continue;
		rc = data_registry_check(reg, &c);
		/* accepted without the secret */
		if (rc == 0 && memcmp(c.secret, what == DATA_DEMUX_MTU ? token : cookie,
				      PROTO_COOKIE_LEN) != 0)
			abort();
	}
	return 0;
}
