// SPDX-License-Identifier: MIT
/*
 * Cross-check of noise_kat.h against a third, independent Noise
 * implementation: the npm package noise-protocol (3.0.2, libsodium based,
 * Noise_*_25519_ChaChaPoly_BLAKE2b). It has no psk patterns, so IKpsk2 is
 * driven token by token with its SymmetricState (InitializeSymmetric,
 * MixHash, MixKey, MixKeyAndHash, EncryptAndHash, Split), which is where
 * every primitive and the BLAKE2b HMAC/HKDF live. Not part of `make check`
 * (it needs npm); run once when noise.c or the vectors change:
 *   cd /tmp && npm install noise-protocol@3.0.2 && \
 *     NODE_PATH=/tmp/node_modules node tests/unit/vectors/crosscheck_noise_protocol.js
 */
'use strict'
const fs = require('fs')
const path = require('path')
const dh = require('noise-protocol/dh')()
const hash = require('noise-protocol/hash')({ dh })
const cipher = require('noise-protocol/cipher')()
const cipherState = require('noise-protocol/cipher-state')({ cipher })
const ss = require('noise-protocol/symmetric-state')({ hash, cipherState })
const { crypto_scalarmult_base } = require('sodium-universal/crypto_scalarmult')

const kat = {}
for (const m of fs.readFileSync(path.join(__dirname, 'noise_kat.h'), 'utf8').matchAll(/#define KAT_(\w+) "([0-9a-f]*)"/g))
  kat[m[1]] = Buffer.from(m[2], 'hex')

function pub (sk) { const p = Buffer.alloc(32); crypto_scalarmult_base(p, sk); return p }
function DH (sk, pk) { const o = Buffer.alloc(32); dh.dh(o, sk, pk); return o }
function cat (...b) { return Buffer.concat(b) }

let failures = 0
function check (name, got, want) {
  const ok = Buffer.compare(Buffer.from(got), want) === 0
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}`)
  if (!ok) failures++
}

function run (tag, cipherName, psk) {
  const sI = kat.S_I, sR = kat.S_R, eI = kat.E_I, eR = kat.E_R
  const spI = pub(sI), spR = pub(sR), epI = pub(eI), epR = pub(eR)
  const st = Buffer.alloc(ss.STATELEN)
  ss.initializeSymmetric(st, Buffer.from('Noise_IKpsk2_25519_ChaChaPoly_BLAKE2b'))
  ss.mixHash(st, Buffer.from('ovlperf tunnel v1 ' + cipherName))   // prologue
  ss.mixHash(st, spR)                                                  // <- s
  // -> e, es, s, ss, payload(timestamp)
  ss.mixHash(st, epI); ss.mixKey(st, epI)                             // e (psk mode: MixKey too)
  ss.mixKey(st, DH(eI, spR))                                          // es
  const encS = Buffer.alloc(48); ss.encryptAndHash(st, encS, spI)     // s
  ss.mixKey(st, DH(sI, spR))                                          // ss
  const encT = Buffer.alloc(28); ss.encryptAndHash(st, encT, kat.TS)  // payload
  check(`${tag} initiation e|s|ts`, cat(epI, encS, encT), kat[tag + '_INIT'].subarray(8, 116))
  // <- e, ee, se, psk, payload(empty)
  ss.mixHash(st, epR); ss.mixKey(st, epR)                             // e
  ss.mixKey(st, DH(eI, epR))                                          // ee
  ss.mixKey(st, DH(sI, epR))                                          // se
  ss.mixKeyAndHash(st, psk)                                           // psk
  const encE = Buffer.alloc(16); ss.encryptAndHash(st, encE, Buffer.alloc(0))
  check(`${tag} response e|empty`, cat(epR, encE), kat[tag + '_RESP'].subarray(12, 60))
  const h = Buffer.alloc(64); ss.getHandshakeHash(st, h)
  check(`${tag} handshake hash`, h, kat[tag + '_H'])
  const c1 = Buffer.alloc(cipherState.STATELEN), c2 = Buffer.alloc(cipherState.STATELEN)
  ss.split(st, c1, c2)
  check(`${tag} initiator send key`, c1.subarray(0, 32), kat[tag + '_T_I_SEND'])
  check(`${tag} initiator recv key`, c2.subarray(0, 32), kat[tag + '_T_I_RECV'])
}

run('CHACHA', 'chacha20poly1305', kat.PSK)
run('AES', 'aes256gcm', kat.PSK)
run('NOPSK', 'chacha20poly1305', Buffer.alloc(32))
process.exit(failures ? 1 : 0)
