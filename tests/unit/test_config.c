// SPDX-License-Identifier: MIT
/* The tunnel's INI config: a full valid file, then one error per case, each
 * naming file, line and key. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"

#define K1 "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
#define K2 "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="

static const char good[] = "; a comment\n"
			   "[interface]\n"
			   "private_key_file = a.key\n"
			   "listen = 198.18.0.1:51900\n"
			   "address = 198.19.0.1/24, 2001:2:0:ff::1/64\n"
			   "mtu = 1420 ; inline comment\n"
			   "max_mtu = 9000\n"
			   "cipher = ChaCha20Poly1305 , aes256gcm\n"
			   "\n"
			   "[peer]\n"
			   "public_key = " K1 "\n"
			   "endpoint = 198.18.0.2:51900\n"
			   "allowed_ips = 198.19.0.2/32, 2001:2:0:ff::2/128\n"
			   "allowed_ips = 10.9.8.7/8\n"
			   "[peer]\n"
			   "public_key = " K2 "\n"
			   "endpoint = [2001:2::2]:51901\n"
			   "allowed_ips = 198.19.0.3\n"
			   "preshared_key_file = /etc/psk\n"
			   "persistent_keepalive = 25\n";

static void test_good(void **state)
{
	struct config c;
	char err[CONFIG_ERR_LEN];
	char ep[80];

	(void)state;
	assert_int_equal(config_parse("/etc/ovl/t.conf", good, strlen(good), &c, err, sizeof(err)),
			 0);
	assert_string_equal(c.private_key_file, "/etc/ovl/a.key");
	assert_int_equal(c.listen.ss_family, AF_INET);
	assert_int_equal(c.naddresses, 2);
	assert_int_equal(c.addresses[0].cidr, 24);
	assert_int_equal(c.addresses[0].addr[3], 1); /* host bits kept on addresses */
	assert_int_equal(c.addresses[1].family, AF_INET6);
	assert_int_equal(c.mtu, 1420);
	assert_int_equal(c.max_mtu, 9000);
	assert_int_equal(c.ciphers.n, 2);
	assert_int_equal(c.ciphers.c[0], AEAD_CHACHA20POLY1305);
	assert_int_equal(c.ciphers.c[1], AEAD_AES256GCM);
	assert_int_equal(c.npeers, 2);
	assert_int_equal(c.peers[0].nallowed, 3);
	assert_int_equal(c.peers[0].line, 10);
	/* 10.9.8.7/8 is stored as 10.0.0.0/8 */
	assert_int_equal(c.allowed[2].addr[0], 10);
	assert_int_equal(c.allowed[2].addr[1], 0);
	assert_int_equal(c.peers[1].first_allowed, 3);
	assert_int_equal(c.peers[1].nallowed, 1);
	assert_int_equal(c.allowed[3].cidr, 32);
	assert_int_equal(c.peers[1].endpoint.ss_family, AF_INET6);
	assert_int_equal(config_format_endpoint(&c.peers[1].endpoint, ep, sizeof(ep)), 0);
	assert_string_equal(ep, "[2001:2::2]:51901");
	assert_string_equal(c.peers[1].psk_file, "/etc/psk");
	assert_int_equal(c.peers[1].keepalive_s, 25);
	assert_int_equal(c.peers[1].public_key[0], 1);
	assert_int_equal(c.sock_buf, CONFIG_DEFAULT_SOCKBUF);
	assert_true(c.worker_ports); /* on unless said */
	assert_true(c.pin_workers);  /* on unless said */
	config_free(&c);
}

/* 'offload' sets the default of each switch; an explicit switch wins in any order. */
static void test_offload_switches(void **state)
{
	static const struct {
		const char *lines;
		bool tso, coalesce, udp_gso;
	} cases[] = {
		{ "", true, true, true },
		{ "offload = off\n", false, false, false },
		{ "tso = off\n", false, true, true },
		{ "udp_gso = off\noffload = on\n", true, true, false },
		{ "coalesce = on\noffload = off\n", false, true, false },
	};
	char text[512], err[CONFIG_ERR_LEN];
	struct config c;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text),
			 "[interface]\nprivate_key_file=k\naddress=198.19.0.1/24\n%s"
			 "[peer]\npublic_key=" K1 "\nallowed_ips=198.19.0.2\n",
			 cases[i].lines);
		assert_int_equal(config_parse("t.conf", text, strlen(text), &c, err, sizeof(err)),
				 0);
		if (c.tso != cases[i].tso || c.coalesce != cases[i].coalesce ||
		    c.udp_gso != cases[i].udp_gso)
			fail_msg("case %zu: tso %d coalesce %d udp_gso %d", i, c.tso, c.coalesce,
				 c.udp_gso);
		config_free(&c);
	}
	snprintf(text, sizeof(text), "[interface]\ntso = maybe\n");
	assert_int_equal(config_parse("t.conf", text, strlen(text), &c, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t.conf:2: key 'tso': 'maybe' is not on or off");
	config_free(&c);
}

static void test_listen_forms(void **state)
{
	static const struct {
		const char *val;
		int family;
		uint16_t port;
	} ok[] = { { "51900", AF_UNSPEC, 51900 },
		   { "[2001:2::1]:51900", AF_INET6, 51900 },
		   { "0.0.0.0:1", AF_INET, 1 } };
	char text[512], err[CONFIG_ERR_LEN];
	struct config c;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(text, sizeof(text),
			 "[interface]\nprivate_key_file=k\nlisten=%s\naddress=2001:2:0:ff::1/64\n"
			 "[peer]\npublic_key=" K1 "\nallowed_ips=2001:2:0:ff::2/128\n",
			 ok[i].val);
		assert_int_equal(config_parse("t.conf", text, strlen(text), &c, err, sizeof(err)),
				 0);
		assert_int_equal(c.listen.ss_family, ok[i].family);
		assert_int_equal(ntohs(((struct sockaddr_in *)&c.listen)->sin_port), ok[i].port);
		assert_string_equal(c.private_key_file, "k");
		config_free(&c);
	}
}

/* Each case: the text, then the exact error. */
static const struct {
	const char *text;
	const char *err;
} bad[] = {
	{ "[interface]\nprivate_key_file=k\nlisten=198.18.0.1\n",
	  "t.conf:3: key 'listen': '198.18.0.1' is not ADDRESS:PORT, [IPV6]:PORT or PORT" },
	{ "[interface]\nlisten=2001:2::1:51900\n",
	  "t.conf:2: key 'listen': '2001:2::1:51900' is not ADDRESS:PORT, [IPV6]:PORT or PORT" },
	{ "[interface]\nmtu=70000\n",
	  "t.conf:2: key 'mtu': '70000' is not a number in 576..65000" },
	{ "[interface]\n\n\nmtu=12x\n",
	  "t.conf:4: key 'mtu': '12x' is not a number in 576..65000" },
	{ "[interface]\nmax_mtu=100\n",
	  "t.conf:2: key 'max_mtu': '100' is not a number in 576..65000" },
	{ "[interface]\nworkers=2\nworker_ports=several\n",
	  "t.conf:3: key 'worker_ports': 'several' is not on or off" },
	{ "[interface]\npin_workers=sometimes\n",
	  "t.conf:2: key 'pin_workers': 'sometimes' is not on or off" },
	{ "[interface]\ncipher=rot13\n",
	  "t.conf:2: key 'cipher': 'rot13': at 'rot13': expected auto, or a comma list of "
	  "aes256gcm and chacha20poly1305 without repeats" },
	{ "[interface]\ncipher=aes256gcm, AES256GCM\n",
	  "t.conf:2: key 'cipher': 'aes256gcm, AES256GCM': at ' AES256GCM': expected auto, or a "
	  "comma list of aes256gcm and chacha20poly1305 without repeats" },
	{ "[interface]\ncipher=aes256gcm,auto\n",
	  "t.conf:2: key 'cipher': 'aes256gcm,auto': at 'auto': expected auto, or a comma list of "
	  "aes256gcm and chacha20poly1305 without repeats" },
	{ "[interface]\naddress=198.19.0.1\n",
	  "t.conf:2: key 'address': '198.19.0.1' is not an address/prefix (e.g. 198.19.0.1/24)" },
	{ "[interface]\naddress=198.19.0.1/33\n", "t.conf:2: key 'address': '198.19.0.1/33' is not "
						  "an address/prefix (e.g. 198.19.0.1/24)" },
	{ "[interface]\nadress=198.19.0.1/24\n",
	  "t.conf:2: key 'adress': unknown key in [interface]" },
	{ "[peer]\npublic_key=abc\n", "t.conf:2: key 'public_key': not a base64 32-byte key" },
	{ "[peer]\nallowed_ips=198.19.0.2/32,,198.19.0.3/32\n",
	  "t.conf:2: key 'allowed_ips': empty item in list" },
	{ "[peer]\nallowed_ips=198.19.0.2/32, fe80::1%eth0\n",
	  "t.conf:2: key 'allowed_ips': 'fe80::1%eth0' is not a prefix (e.g. 198.19.0.2/32)" },
	{ "[peer]\nendpoint=[2001:2::2]\n",
	  "t.conf:2: key 'endpoint': '[2001:2::2]' is not ADDRESS:PORT or [IPV6]:PORT" },
	{ "[peer]\npersistent_keepalive=-1\n",
	  "t.conf:2: key 'persistent_keepalive': '-1' is not seconds in 0..65535" },
	{ "mtu=1420\n", "t.conf:1: key 'mtu': key outside of an [interface] or [peer] section" },
	{ "[interface]\n[interface]\n", "t.conf:2: second [interface] section" },
	{ "[interfaces]\n",
	  "t.conf:1: unknown section '[interfaces]' (expected [interface] or [peer])" },
	{ "[interface]\nthis line has no equals sign\n",
	  "t.conf:2: syntax error (expected '[section]' or 'key = value')" },
	{ "[interface]\nlisten=1\n", "t.conf:1: key 'private_key_file': missing in [interface]" },
	{ "[interface]\nprivate_key_file=k\n", "t.conf:1: key 'address': missing in [interface]" },
	{ "[interface]\nprivate_key_file=k\naddress=198.19.0.1/24\n",
	  "t.conf:1: no [peer] section" },
	{ "[interface]\nprivate_key_file=k\naddress=198.19.0.1/24\n[peer]\nendpoint=198.18.0.2:1\n",
	  "t.conf:4: key 'public_key': missing in this [peer] section" },
	{ "[interface]\nprivate_key_file=k\naddress=198.19.0.1/24\n[peer]\npublic_key=" K1 "\n",
	  "t.conf:4: key 'allowed_ips': missing in this [peer] section (nothing would be routed)" },
	{ "[interface]\nprivate_key_file=k\naddress=198.19.0.1/24\n[peer]\npublic_key=" K1
	  "\nallowed_ips=198.19.0.2\n[peer]\npublic_key=" K1 "\nallowed_ips=198.19.0.3\n",
	  "t.conf:7: key 'public_key': same key as the [peer] at line 4" },
	{ "", "t.conf:1: no [interface] section" },
	{ "[interface]\nunderlay_fd=2\n",
	  "t.conf:2: key 'underlay_fd': '2' is not a descriptor number in 3..1023" },
	{ "[interface]\nprivate_key_file=k\naddress=198.19.0.1/24\nunderlay_fd=3\nlisten=1\n"
	  "[peer]\npublic_key=" K1 "\nallowed_ips=198.19.0.2\n",
	  "t.conf:1: key 'underlay_fd': excludes 'listen' (the inherited socket is bound "
	  "already)" },
	{ "\n[interface]\nprivate_key_file=k\n[peer]\npublic_key=" K1 "\nallowed_ips=198.19.0.3\n",
	  "t.conf:2: key 'address': missing in [interface]" },
};

static void test_bad(void **state)
{
	char err[CONFIG_ERR_LEN];
	struct config c;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = config_parse("t.conf", bad[i].text, strlen(bad[i].text), &c, err,
				     sizeof(err));

		if (r != -EINVAL || strcmp(err, bad[i].err))
			fail_msg("case %zu: r=%d err='%s', expected '%s'", i, r, err, bad[i].err);
		config_free(&c);
	}
}

static void test_long_line_and_nul(void **state)
{
	char text[600], err[CONFIG_ERR_LEN];
	struct config c;
	size_t n;

	(void)state;
	n = (size_t)snprintf(text, sizeof(text), "[peer]\nallowed_ips=");
	while (n < 400)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "198.19.0.2/32,");
	text[n++] = '\n';
	assert_int_equal(config_parse("t.conf", text, n, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.conf:2: line longer than"));
	config_free(&c);
	assert_int_equal(config_parse("t.conf", "[peer]\nmtu\0=1\n", 13, &c, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:2: NUL byte in line");
	config_free(&c);
}

static void test_load_missing_file(void **state)
{
	char err[CONFIG_ERR_LEN];
	struct config c;

	(void)state;
	assert_int_equal(config_load("/nonexistent/x.conf", &c, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "/nonexistent/x.conf: cannot open: No such file or directory");
	config_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_listen_forms),
		cmocka_unit_test(test_offload_switches),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_long_line_and_nul),
		cmocka_unit_test(test_load_missing_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
