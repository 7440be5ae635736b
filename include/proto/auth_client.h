/* SPDX-License-Identifier: MIT */
/*
 * The client's half of the pre-shared-key exchange (auth.h) on a control
 * connection whose server asked for one (PROTO_CAP_AUTH_REQUIRED in its
 * HELLO): AUTH_CHALLENGE in, AUTH_RESPONSE out, AUTH_OK in, and the
 * server's own proof checked, so that both ends know the other holds the
 * key. One implementation for every client of the protocol (the loads, the
 * built-in overlay's session).
 */
#ifndef OVLPERF_AUTH_CLIENT_H
#define OVLPERF_AUTH_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "ctrl.h"
#include "proto.h"

/* Reads the next message, which must be of this type: 0, or negative after
 * recording its own error (a timeout, an ERROR from the server ...). Each
 * client words and times its waits its own way. */
typedef int (*auth_expect_fn)(void *ctx, struct proto_msg *m, uint16_t type);

/* The exchange with the key in psk_file. 0, or negative: with a sentence in
 * err when the failure is the exchange's own (key file, malformed message,
 * the server's proof), err left empty when expect reported it. */
int auth_client_exchange(struct ctrl *c, const char *psk_file, auth_expect_fn expect, void *ctx,
			 char *err, size_t errlen);

#endif
