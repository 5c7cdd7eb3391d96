// SPDX-License-Identifier: Apache-2.0
#ifndef CBLKID_SHIM_H
#define CBLKID_SHIM_H
/* libblkid, found through pkg-config ("blkid"); Debian package libblkid-dev. */
#include <blkid.h>
#endif
