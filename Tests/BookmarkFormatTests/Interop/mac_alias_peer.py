#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Interop peer for BookmarkFormatTests, built on mac_alias (PyPI, 2.2.3).

  mac_alias_peer.py decode FILE       FILE holds one base64 bookmark per line; prints one JSON
                                      object per line with what mac_alias decoded (or "error").
  mac_alias_peer.py encode N SEED     encodes N random bookmarks with mac_alias; prints one JSON
                                      object per line: the base64 bytes and the values used.
  mac_alias_peer.py alias V N SEED    the same for alias records of version V (2 or 3): mac_alias
                                      writes both, though it can read only version 2.
  mac_alias_peer.py read-alias FILE   FILE holds one alias record (raw bytes); prints one JSON
                                      object with what mac_alias read of it (or "error").

Dates are reported as seconds since 2001-01-01 UTC (float); mac_alias keeps microseconds.
"""
import base64
import datetime
import json
import random
import sys
import uuid

import mac_alias
from mac_alias import bookmark as bm
from mac_alias.utils import osx_epoch


def secs(value):
    if isinstance(value, datetime.datetime):
        return (value - osx_epoch).total_seconds()
    return None


def decode(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                b = mac_alias.Bookmark.from_bytes(base64.b64decode(line))
                ids = b.get(bm.kBookmarkCNIDPath)
                out = {
                    "path": list(b.get(bm.kBookmarkPath, [])),
                    "fileIDs": [None if i is None else int(i) for i in ids] if ids is not None else None,
                    "volumeUUID": b.get(bm.kBookmarkVolumeUUID),
                    "volumeName": b.get(bm.kBookmarkVolumeName),
                    "volumePath": b.get(bm.kBookmarkVolumePath),
                    "creationDate": secs(b.get(bm.kBookmarkFileCreationDate)),
                    "volumeCreationDate": secs(b.get(bm.kBookmarkVolumeCreationDate)),
                    "creationOptions": b.get(bm.kBookmarkCreationOptions),
                    "stringKeys": sorted(k for k in b.tocs[0][1] if isinstance(k, str)),
                }
            except Exception as e:  # report, do not stop: the Swift side counts failures
                out = {"error": f"{type(e).__name__}: {e}"}
            print(json.dumps(out, sort_keys=True))


NAME_CHARS = "abcXYZ019 -_.éßü中😀"


def rand_name(rng):
    return "".join(rng.choice(NAME_CHARS) for _ in range(rng.randint(1, 12)))


def rand_date(rng):
    micros = rng.randint(-946_080_000_000_000, 946_080_000_000_000)
    return osx_epoch + datetime.timedelta(microseconds=micros)


def encode(n, seed):
    rng = random.Random(seed)
    for _ in range(n):
        comps = [rand_name(rng) for _ in range(rng.randint(0, 6))]
        ids = [rng.randint(2, 2**62) if rng.random() < 0.5 else rng.randint(2, 2**31 - 2) for _ in comps]
        vol_uuid = str(uuid.UUID(int=rng.getrandbits(128))).upper()
        vol_name = rand_name(rng)
        created = rand_date(rng)
        vol_created = rand_date(rng)
        b = mac_alias.Bookmark()
        b[bm.kBookmarkPath] = comps
        b[bm.kBookmarkCNIDPath] = ids
        b[bm.kBookmarkFileCreationDate] = created
        b[bm.kBookmarkVolumePath] = "/"
        b[bm.kBookmarkVolumeURL] = mac_alias.URL("file:///")
        b[bm.kBookmarkVolumeName] = vol_name
        b[bm.kBookmarkVolumeUUID] = vol_uuid
        b[bm.kBookmarkVolumeSize] = rng.randint(0, 2**50)
        b[bm.kBookmarkVolumeCreationDate] = vol_created
        b[bm.kBookmarkVolumeIsRoot] = True
        b[bm.kBookmarkCreationOptions] = 512
        b["NSURLDocumentIdentifierKey"] = rng.randint(0, 1000)
        print(json.dumps({
            "b64": base64.b64encode(b.to_bytes()).decode(),
            "path": comps, "fileIDs": ids, "volumeUUID": vol_uuid, "volumeName": vol_name,
            "creationDate": secs(created), "volumeCreationDate": secs(vol_created),
        }, sort_keys=True))


def alias_records(version, n, seed):
    rng = random.Random(seed)
    utc = datetime.timezone.utc
    for _ in range(n):
        name = "".join(rng.choice("abcdefXYZ019 -_.é") for _ in range(rng.randint(1, 20)))
        vol_created = datetime.datetime(2001, 1, 1, tzinfo=utc) + datetime.timedelta(seconds=rng.randint(0, 10**9))
        created = datetime.datetime(2001, 1, 1, tzinfo=utc) + datetime.timedelta(seconds=rng.randint(0, 10**9))
        volume = mac_alias.VolumeInfo(
            "Macintosh HD", vol_created, b"H+" if version == 2 else b"H+\0\0", 0, 0, b"\0\0",
            posix_path="/")
        target = mac_alias.TargetInfo(
            rng.randint(0, 1), name, rng.randint(2, 2**31), rng.randint(2, 2**31), created,
            b"ttxt", b"TEXT", posix_path="/tmp/" + name)
        a = mac_alias.Alias(version=version, volume=volume, target=target)
        print(json.dumps({
            "b64": base64.b64encode(a.to_bytes()).decode(),
            "name": name, "cnid": target.cnid, "parentCNID": target.folder_cnid, "kind": target.kind,
            "path": "/tmp/" + name,
            "creationDate": (created - osx_epoch).total_seconds(),
            "volumeCreationDate": (vol_created - osx_epoch).total_seconds(),
        }, sort_keys=True))


def read_alias(path):
    try:
        with open(path, "rb") as f:
            a = mac_alias.Alias.from_bytes(f.read())
        t, v = a.target, a.volume
        out = {
            "version": a.version, "kind": t.kind, "cnid": t.cnid, "parentCNID": t.folder_cnid,
            "filename": t.filename.decode("mac_roman") if isinstance(t.filename, bytes) else t.filename,
            "posixPath": t.posix_path, "volumePosixPath": v.posix_path,
            "cnidPath": list(t.cnid_path) if t.cnid_path else None,
            "carbonPath": t.carbon_path.decode("mac_roman") if t.carbon_path else None,
        }
    except Exception as e:  # report, do not stop: the Swift side says what failed
        out = {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "decode":
        decode(sys.argv[2])
    elif cmd == "encode":
        encode(int(sys.argv[2]), int(sys.argv[3]))
    elif cmd == "alias":
        alias_records(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "read-alias":
        read_alias(sys.argv[2])
    else:
        sys.exit(__doc__)
