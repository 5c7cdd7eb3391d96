// SPDX-License-Identifier: Apache-2.0
import CBlkid
import SecureFiles
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// What libblkid says about a block device.
package struct BlockDeviceInfo: Sendable, Hashable, Codable {
    /// The device node, such as `/dev/loop3`.
    package var device: String
    /// The file system UUID (`UUID` tag), as libblkid spells it.
    package var uuid: String?
    /// The label (`LABEL` tag).
    package var label: String?
    /// The file system type (`TYPE` tag).
    package var type: String?
    /// The partition UUID, when the device is a partition.
    package var partitionUUID: String?
    /// `true` when the values were read from the device now; `false` when they came from
    /// libblkid's cache (`/run/blkid/blkid.tab`) because the device could not be opened.
    package var verified: Bool
}

/// libblkid, used only as an enrichment: probing needs read access to the device node (root or
/// group `disk`), and even root gets `EPERM` on some machines. Every call passes through
/// `SyscallSeam.external(_:path:_:)` so it is traced and can be failed by injection.
package enum BlockDeviceProbe {
    /// Probes `device` for its superblock.
    ///
    /// - Returns: What the superblock says, or a ``FileIdentityError``:
    ///   ``FileIdentityError/Code/fileSystem`` when the device cannot be opened or read (the
    ///   cause names `blkid_do_safeprobe` with the errno libblkid left, such as `EACCES`), or
    ///   ``FileIdentityError/Code/unrecognizedDevice`` when libblkid finds no single file system
    ///   on it (none, or several conflicting signatures).
    package static func probe(device: FilePath) -> Result<BlockDeviceInfo, FileIdentityError> {
        var info: BlockDeviceInfo?
        var unrecognized: String?
        let failure = SyscallSeam.external("blkid_do_safeprobe", path: device) { () -> Errno? in
            // libblkid reports a failed open or read through errno; 0 there means it failed
            // without one, which is reported as unrecognised rather than given an errno.
            Glibc.errno = 0
            let probe: blkid_probe? = device.withPlatformString { blkid_new_probe_from_filename($0) }
            guard let probe else {
                if Glibc.errno != 0 { return Errno(rawValue: Glibc.errno) }
                unrecognized = "libblkid cannot make a probe for it"
                return nil
            }
            defer { blkid_free_probe(probe) }
            blkid_probe_enable_superblocks(probe, 1)
            blkid_probe_set_superblocks_flags(probe, Int32(BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL | BLKID_SUBLKS_TYPE))
            blkid_probe_enable_partitions(probe, 1)
            blkid_probe_set_partitions_flags(probe, Int32(BLKID_PARTS_ENTRY_DETAILS))
            Glibc.errno = 0
            let rc = blkid_do_safeprobe(probe)
            switch rc {
            case 0: break
            case 1:
                unrecognized = "libblkid finds no file system on it"
                return nil
            case -2:
                unrecognized = "libblkid finds several conflicting file system signatures on it"
                return nil
            default:
                if Glibc.errno != 0 { return Errno(rawValue: Glibc.errno) }
                unrecognized = "libblkid failed to probe it (\(rc))"
                return nil
            }
            func value(_ name: String) -> String? {
                var data: UnsafePointer<CChar>?
                var length = 0
                guard blkid_probe_lookup_value(probe, name, &data, &length) == 0, let data else { return nil }
                return String(cString: data)
            }
            info = BlockDeviceInfo(
                device: device.string, uuid: value("UUID"), label: value("LABEL"), type: value("TYPE"),
                partitionUUID: value("PART_ENTRY_UUID"), verified: true)
            return nil
        }
        if let failure {
            return .failure(FileIdentityError(FileSystemError(syscall: "blkid_do_safeprobe", errno: failure, path: device)))
        }
        guard let info else {
            return .failure(FileIdentityError(.unrecognizedDevice, unrecognized ?? "libblkid gave no values", path: device))
        }
        return .success(info)
    }

    /// The probe when the device can be read, else libblkid's cached values flagged unverified.
    package static func info(device: FilePath) -> BlockDeviceInfo? {
        switch probe(device: device) {
        case .success(let info): return info
        case .failure(let error) where error.cause?.code == .permissionDenied: return cached(device: device)
        case .failure: return nil
        }
    }

    /// libblkid's cached tags for `device` (`blkid_get_tag_value` with the default cache), flagged
    /// unverified. libblkid returns cache data when it lacks permission to re-read the device.
    package static func cached(device: FilePath) -> BlockDeviceInfo? {
        var info: BlockDeviceInfo?
        _ = SyscallSeam.external("blkid_get_tag_value", path: device) { () -> Errno? in
            var cache: blkid_cache?
            guard blkid_get_cache(&cache, nil) == 0, let cache else { return .ioError }
            defer { blkid_put_cache(cache) }
            func tag(_ name: String) -> String? {
                guard let value = device.withPlatformString({ blkid_get_tag_value(cache, name, $0) }) else { return nil }
                defer { free(value) }
                return String(cString: value)
            }
            let uuid = tag("UUID")
            guard uuid != nil else { return .noSuchFileOrDirectory }
            info = BlockDeviceInfo(
                device: device.string, uuid: uuid, label: tag("LABEL"), type: tag("TYPE"), partitionUUID: nil,
                verified: false)
            return nil
        }
        return info
    }

    /// The device node libblkid knows for a UUID (`blkid_evaluate_tag`: udev symlinks first, then
    /// its cache and a scan of readable devices), or `nil`.
    package static func device(forUUID uuid: String) -> FilePath? {
        var found: FilePath?
        _ = SyscallSeam.external("blkid_evaluate_tag", path: nil) { () -> Errno? in
            var cache: blkid_cache?
            guard blkid_get_cache(&cache, nil) == 0 else { return .ioError }
            defer { if let cache { blkid_put_cache(cache) } }
            guard let name = blkid_evaluate_tag("UUID", uuid, &cache) else { return .noSuchFileOrDirectory }
            defer { free(name) }
            found = FilePath(String(cString: name))
            return nil
        }
        return found
    }

    /// The device node of a block device number (`blkid_devno_to_devname`), or `nil` for anonymous
    /// devices (btrfs, tmpfs, overlayfs, NFS).
    package static func deviceName(for number: DeviceNumber) -> FilePath? {
        guard number.major != 0 else { return nil }
        var found: FilePath?
        _ = SyscallSeam.external("blkid_devno_to_devname", path: nil) { () -> Errno? in
            let devno = (dev_t(number.major & 0xfff) << 8) | dev_t(number.minor & 0xff)
                | (dev_t(number.major & ~0xfff) << 32) | (dev_t(number.minor & ~0xff) << 12)
            guard let name = blkid_devno_to_devname(devno) else { return .noSuchFileOrDirectory }
            defer { free(name) }
            found = FilePath(String(cString: name))
            return nil
        }
        return found
    }

    /// The attached block devices with data (`/proc/partitions`, size > 0), as `/dev/NAME` paths.
    /// Unattached loop devices (size 0) are left out.
    package static func attachedDevices() -> [FilePath] {
        guard let bytes = try? Directory.current.readFile("/proc/partitions") else {
            return []
        }
        var devices: [FilePath] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")).dropFirst() {
            let fields = line.split(separator: UInt8(ascii: " ")).map { Array($0) }
            guard fields.count == 4, let blocks = UInt64(String(decoding: fields[2], as: UTF8.self)), blocks > 0,
                !fields[3].contains(UInt8(ascii: "/"))
            else { continue }
            devices.append(FilePath(bytes: Array("/dev/".utf8) + fields[3]))
        }
        return devices
    }
}
