// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>

#include "auth.h"
#include "auth_client.h"

int auth_client_exchange(struct ctrl *c, const char *psk_file, auth_expect_fn expect, void *ctx,
			 char *err, size_t errlen)
{
	struct proto_auth_challenge ch;
	struct proto_auth_response resp;
	struct proto_auth_ok ok;
	struct auth_key *key = NULL;
	struct proto_msg m;
	int rc;

	err[0] = '\0';
	rc = auth_key_load(psk_file, &key, err, errlen);
	if (rc < 0)
		return rc;
	rc = expect(ctx, &m, PROTO_AUTH_CHALLENGE);
	if (rc == 0 && proto_decode_auth_challenge(m.body, m.len, &ch) < 0) {
		snprintf(err, errlen, "malformed AUTH_CHALLENGE");
		rc = -EPROTO;
	}
	if (rc == 0) {
		auth_nonce(resp.client_nonce);
		auth_proof(key, AUTH_CLIENT, ch.server_nonce, resp.client_nonce, PROTO_VERSION,
			   resp.mac);
		rc = ctrl_send(c, proto_encode_auth_response(c->out, PROTO_MAX_MSG, &resp));
		if (rc < 0)
			snprintf(err, errlen, "sending AUTH_RESPONSE: %s", proto_strerror(rc));
	}
	if (rc == 0)
		rc = expect(ctx, &m, PROTO_AUTH_OK);
	if (rc == 0 && (proto_decode_auth_ok(m.body, m.len, &ok) < 0 ||
			auth_verify(key, AUTH_SERVER, ch.server_nonce, resp.client_nonce,
				    PROTO_VERSION, ok.mac) < 0)) {
		snprintf(err, errlen, "the server could not prove it holds the pre-shared key");
		rc = -EACCES;
	}
	auth_key_free(key);
	return rc;
}
