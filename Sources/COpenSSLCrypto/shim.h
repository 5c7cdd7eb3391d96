// SPDX-License-Identifier: Apache-2.0
// The system's OpenSSL libcrypto (Debian libssl-dev): the digests the Digests target wraps.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
