// SPDX-License-Identifier: Apache-2.0
import SecureFiles
import SystemPackage

/// One line of `/proc/self/mountinfo` (see proc(5)).
///
/// Paths are kept as raw bytes with the kernel's octal escapes (`\040` for a space, …) decoded, so
/// mount points whose names are not UTF-8 survive.
public struct MountEntry: Sendable, Hashable {
    /// Field 1: the mount id, reusable after unmount. `name_to_handle_at` and `STATX_MNT_ID` report it.
    public var mountID: MountID
    /// Field 2: the parent mount's id.
    public var parentID: MountID
    /// Field 3: the superblock's device. On btrfs this is *not* the `st_dev` of its files.
    public var device: DeviceNumber
    /// Field 4: the directory of the file system that is the root of this mount (not `/` for bind
    /// mounts and btrfs subvolume mounts).
    public var root: [UInt8]
    /// Field 5: where it is mounted.
    public var mountPoint: [UInt8]
    /// Field 6: per-mount options.
    public var options: [String]
    /// Optional fields (`shared:N`, `master:N`, …).
    public var optionalFields: [String]
    /// The file system type, such as `ext4` or `fuse.exfat`.
    public var fsType: String
    /// The mount source: a device such as `/dev/loop0`, `server:/export`, or a name such as `tmpfs`.
    public var source: [UInt8]
    /// Per-superblock options (`subvolid=256,subvol=/sub` on btrfs).
    public var superOptions: [String]

    /// ``mountPoint`` as a path.
    public var mountPointPath: FilePath { FilePath(bytes: mountPoint) }
    /// ``root`` as a path.
    public var rootPath: FilePath { FilePath(bytes: root) }
    /// ``source`` as text (escaped where not UTF-8).
    public var sourceString: String { PathBytes(source).escaped }
    /// Whether this mount shows the file system's whole tree (`root == "/"`), not a bind of a subtree.
    public var isWholeFileSystem: Bool { root == [UInt8(ascii: "/")] }
    /// Whether the mount is read-only.
    public var isReadOnly: Bool { options.contains("ro") }

    /// The kind of file system, for deciding what may be touched.
    public var category: FileSystemCategory { FileSystemCategory(fsType: fsType) }

    /// Whether a call that touches this mount can block for as long as something outside the
    /// kernel takes to answer: FUSE (`fuse`, `fuseblk`, `fuse.*`: a daemon answers every request,
    /// and a stopped daemon never does) and network file systems (``FileSystemCategory/network``:
    /// a server that went away). Such mounts are never opened to list or identify volumes, and calls
    /// that must touch them run under a response timeout (see Docs/RELIABILITY.md).
    public var mayBlock: Bool { FileSystemCategory.mayBlock(fsType: fsType) }

    /// Whether this is an automount trigger (`autofs`): looking up a name beneath it mounts
    /// something (and waits for the automount daemon), so the library never looks beneath one
    /// unless asked to mount.
    public var isAutomountTrigger: Bool { fsType == "autofs" }
}

/// How a file system type is treated when volumes are enumerated or located.
public enum FileSystemCategory: String, Sendable, Hashable, Codable {
    /// A local disk file system (ext4, XFS, btrfs, vfat, exFAT, …): opened and asked for its UUID.
    case local
    /// Memory-backed (tmpfs, ramfs): opened, but it has no persistent identity.
    case memory
    /// Network or remote (NFS, CIFS, sshfs, …): never opened by default, since that may block.
    case network
    /// Kernel pseudo file systems (proc, sysfs, cgroup, …): not volumes; autofs is here too,
    /// because touching it would trigger a mount.
    case pseudo

    /// Kernel pseudo file systems (built once: `init(fsType:)` runs for every mount entry).
    private static let pseudoTypes: Set<String> = [
        "proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "debugfs", "tracefs", "securityfs", "pstore",
        "bpf", "configfs", "fusectl", "binfmt_misc", "autofs", "hugetlbfs", "devtmpfs", "efivarfs", "nsfs",
        "rpc_pipefs", "selinuxfs", "nfsd",
    ]
    /// Network and remote file systems.
    private static let networkTypes: Set<String> = [
        "nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph", "9p", "afs", "glusterfs", "fuse.sshfs", "fuse.rclone",
        "fuse.s3fs", "fuse.glusterfs", "lustre", "davfs", "fuse.davfs2", "ncpfs", "coda", "gfs2", "ocfs2",
    ]

    /// Whether calls on a file system of this type wait for a daemon or a server (see
    /// ``MountEntry/mayBlock``).
    public static func mayBlock(fsType: String) -> Bool {
        fsType == "fuse" || fsType == "fuseblk" || fsType.hasPrefix("fuse.") || networkTypes.contains(fsType)
            || fsType.hasPrefix("nfs")
    }

    /// The category of a mountinfo file system type.
    public init(fsType: String) {
        if Self.pseudoTypes.contains(fsType) {
            self = .pseudo
        } else if Self.networkTypes.contains(fsType) {
            self = .network
        } else if fsType == "tmpfs" || fsType == "ramfs" {
            self = .memory
        } else {
            self = .local
        }
    }
}

/// The mount table of this process's mount namespace.
public struct MountTable: Sendable, Hashable {
    /// The entries, in the kernel's order (parents before children; later mounts over earlier ones).
    public var entries: [MountEntry]

    /// Creates a table from entries.
    public init(entries: [MountEntry]) { self.entries = entries }

    /// Reads and parses `/proc/self/mountinfo` (through `SyscallSeam`).
    ///
    /// - Throws: ``FileIdentityError``: ``FileIdentityError/Code/fileSystem`` if it cannot be read,
    ///   ``FileIdentityError/Code/malformedMountTable`` if a line is not a mount entry.
    public static func current() throws(FileIdentityError) -> MountTable {
        let bytes = try FileIdentityError.wrapping { () throws(FileSystemError) -> [UInt8] in
            try Directory.current.readFile(path)
        }
        return try parsing(bytes)
    }

    /// Where the kernel lists this process's mounts.
    static let path: FilePath = "/proc/self/mountinfo"

    /// ``init(parsing:)`` of text read from ``path``, its errors naming that file.
    static func parsing(_ bytes: [UInt8]) throws(FileIdentityError) -> MountTable {
        do throws(FileIdentityError) {
            return try MountTable(parsing: bytes)
        } catch {
            var located = error
            located.path = path
            throw located
        }
    }

    /// Parses mountinfo text.
    ///
    /// - Throws: ``FileIdentityError`` with code ``FileIdentityError/Code/malformedMountTable``,
    ///   naming the line (``FileIdentityError/mountTableLine``) and what was wrong.
    public init(parsing bytes: [UInt8]) throws(FileIdentityError) {
        var entries: [MountEntry] = []
        var lineNumber = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            lineNumber += 1
            entries.append(try MountTable.parseLine(Array(line), number: lineNumber))
        }
        self.entries = entries
    }

    static func parseLine(_ line: [UInt8], number: Int) throws(FileIdentityError) -> MountEntry {
        let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true).map { Array($0) }
        guard let separator = fields.firstIndex(of: [UInt8(ascii: "-")]), separator >= 6, fields.count >= separator + 3
        else { throw malformed(number, "expected 6+ fields, '-', and 3 more") }
        func text(_ field: [UInt8]) -> String { String(decoding: field, as: UTF8.self) }
        guard let mountID = Int32(text(fields[0])), let parentID = Int32(text(fields[1])) else {
            throw malformed(number, "mount ids are not numbers")
        }
        let numbers = text(fields[2]).split(separator: ":")
        guard numbers.count == 2, let major = UInt32(numbers[0]), let minor = UInt32(numbers[1]) else {
            throw malformed(number, "device is not major:minor")
        }
        return MountEntry(
            mountID: MountID(rawValue: mountID),
            parentID: MountID(rawValue: parentID),
            device: DeviceNumber(major: major, minor: minor),
            root: unescapeOctal(fields[3]),
            mountPoint: unescapeOctal(fields[4]),
            options: text(fields[5]).split(separator: ",").map(String.init),
            optionalFields: fields[6..<separator].map(text),
            fsType: text(unescapeOctal(fields[separator + 1])),
            source: unescapeOctal(fields[separator + 2]),
            superOptions: fields.count > separator + 3
                ? text(fields[separator + 3]).split(separator: ",").map(String.init) : []
        )
    }

    /// The entry with this reusable mount id (`name_to_handle_at`'s, mountinfo's first field).
    public func entry(mountID: MountID) -> MountEntry? {
        entries.last { $0.mountID == mountID }
    }

    static func malformed(_ line: Int, _ reason: String, file: StaticString = #fileID, lineInFile: UInt = #line)
        -> FileIdentityError
    {
        FileIdentityError(.malformedMountTable, reason, mountTableLine: line, file: file, line: lineInFile)
    }

    /// The mount a path is on, read from the table without touching the file system: the entry
    /// with the longest mount point that contains `path` (component-wise), the last one where
    /// several are stacked on one mount point (the kernel lists a mount after the one it covers).
    ///
    /// Symbolic links along `path` are not followed (the table cannot see them), so a path through
    /// a link into another mount reports the link's mount.
    ///
    /// - Parameter path: An absolute path, as raw bytes.
    /// - Returns: The entry, or `nil` for a relative path or an empty table.
    public func entry(covering path: [UInt8]) -> MountEntry? {
        guard path.first == UInt8(ascii: "/") else { return nil }
        // Normalized once; the kernel prints mount points normalized, so a byte prefix ending at a
        // component boundary is containment.
        let normal = PathBytes(path).normalized.bytes
        let slash = UInt8(ascii: "/")
        var best: MountEntry?
        for entry in entries {
            let point = entry.mountPoint
            guard normal.starts(with: point),
                point == [slash] || normal.count == point.count || normal[point.count] == slash
            else { continue }
            if let current = best, current.mountPoint.count > point.count { continue }
            best = entry
        }
        return best
    }

    /// The entries that are real volumes (not pseudo file systems), in kernel order.
    public var volumes: [MountEntry] { entries.filter { $0.category != .pseudo } }
}

/// Decodes the kernel's `\ooo` escapes (space, tab, newline, backslash) into raw bytes.
func unescapeOctal(_ field: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(field.count)
    var index = 0
    while index < field.count {
        let byte = field[index]
        if byte == UInt8(ascii: "\\"), index + 3 < field.count + 0 || index + 3 == field.count {
            let digits = field[(index + 1)..<min(index + 4, field.count)]
            if digits.count == 3, digits.allSatisfy({ (0x30...0x37).contains($0) }) {
                let value = digits.reduce(0) { $0 * 8 + Int($1 - 0x30) }
                if value <= 255 {
                    out.append(UInt8(value))
                    index += 4
                    continue
                }
            }
        }
        out.append(byte)
        index += 1
    }
    return out
}
