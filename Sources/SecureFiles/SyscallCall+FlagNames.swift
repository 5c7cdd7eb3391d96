// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Typed flags: the raw bits of a call decoded by the call's own vocabulary

extension SyscallCall {
    /// The ``flags`` decoded into C names for this call: `O_*` for `openat`/`openat2`, `AT_*` for
    /// `statx`, `unlinkat`, `linkat` and `name_to_handle_at`, `RENAME_*` for `renameat2`. Bits
    /// without a name are shown as `0x…`. Empty when there are no flags.
    public var flagNames: [String] {
        guard let flags else { return [] }
        switch name {
        case "openat", "openat2", "open_by_handle_at", "inotify_init1": return Self.openFlagNames(flags)
        case "inotify_add_watch": return Self.names(flags, Self.inotifyFlags, zero: "0")
        case "madvise": return [String(flags)]
        case "renameat2": return Self.names(flags, Self.renameFlags, zero: "0")
        case "name_to_handle_at":
            return Self.names(flags, Self.atFlags.filter { $0.1 != "AT_REMOVEDIR" }, zero: "0")
        default: return Self.names(flags, Self.atFlags, zero: "0")
        }
    }

    /// The ``resolve`` bits decoded into `RESOLVE_*` names.
    public var resolveNames: [String] {
        guard let resolve else { return [] }
        return Self.names(Int64(bitPattern: resolve), Self.resolveFlags, zero: "0")
    }

    /// Whether the call asked not to follow a symlink in its last component (`O_NOFOLLOW`,
    /// `AT_SYMLINK_NOFOLLOW`) or refused all symlinks (`RESOLVE_NO_SYMLINKS`).
    public var refusesTrailingSymlink: Bool {
        guard let flags else { return false }
        switch name {
        case "openat", "openat2":
            let creatExcl = Int64(O_CREAT | O_EXCL)
            return flags & Int64(O_NOFOLLOW) != 0 || flags & creatExcl == creatExcl
                || (resolve ?? 0) & 0x04 != 0
        case "statx", "name_to_handle_at": return flags & Int64(AT_SYMLINK_NOFOLLOW) != 0
        case "inotify_add_watch": return flags & Int64(IN_DONT_FOLLOW) != 0
        default: return true
        }
    }

    static let openFlagTable: [(Int64, String)] = [
        (Int64(O_WRONLY), "O_WRONLY"), (Int64(O_RDWR), "O_RDWR"), (Int64(O_CREAT), "O_CREAT"),
        (Int64(O_EXCL), "O_EXCL"), (Int64(O_NOCTTY), "O_NOCTTY"), (Int64(O_TRUNC), "O_TRUNC"),
        (Int64(O_APPEND), "O_APPEND"), (Int64(O_NONBLOCK), "O_NONBLOCK"), (0o200000, "O_DIRECTORY"),
        (Int64(O_NOFOLLOW), "O_NOFOLLOW"), (Int64(O_CLOEXEC), "O_CLOEXEC"), (0o10000000, "O_PATH"),
        (0o20000000, "__O_TMPFILE"), (0o4010000, "O_SYNC"),
    ]

    static func openFlagNames(_ flags: Int64) -> [String] {
        var names: [String] = flags & 0o3 == 0 ? ["O_RDONLY"] : []
        var rest = flags
        if flags & 0o20200000 == 0o20200000 {
            names.append("O_TMPFILE")
            rest &= ~0o20200000
        }
        for (bit, name) in openFlagTable where rest & bit == bit && bit != 0 {
            names.append(name)
            rest &= ~bit
        }
        if rest != 0 { names.append("0x" + String(rest, radix: 16)) }
        return names
    }

    static let atFlags: [(Int64, String)] = [
        (Int64(AT_SYMLINK_NOFOLLOW), "AT_SYMLINK_NOFOLLOW"), (Int64(AT_REMOVEDIR), "AT_REMOVEDIR"),
        (Int64(AT_SYMLINK_FOLLOW), "AT_SYMLINK_FOLLOW"), (0x1000, "AT_EMPTY_PATH"),
        (0x200, "AT_HANDLE_FID"),
    ]
    static let inotifyFlags: [(Int64, String)] = [
        (Int64(IN_ATTRIB), "IN_ATTRIB"), (Int64(IN_DELETE), "IN_DELETE"), (Int64(IN_DELETE_SELF), "IN_DELETE_SELF"),
        (Int64(IN_MOVE_SELF), "IN_MOVE_SELF"), (Int64(IN_MOVED_TO), "IN_MOVED_TO"), (Int64(IN_ONLYDIR), "IN_ONLYDIR"),
        (Int64(IN_DONT_FOLLOW), "IN_DONT_FOLLOW"), (Int64(IN_MASK_CREATE), "IN_MASK_CREATE"),
        (Int64(IN_MASK_ADD), "IN_MASK_ADD"),
    ]
    static let renameFlags: [(Int64, String)] = [(1, "RENAME_NOREPLACE"), (2, "RENAME_EXCHANGE"), (4, "RENAME_WHITEOUT")]
    static let resolveFlags: [(Int64, String)] = [
        (0x01, "RESOLVE_NO_XDEV"), (0x02, "RESOLVE_NO_MAGICLINKS"), (0x04, "RESOLVE_NO_SYMLINKS"),
        (0x08, "RESOLVE_BENEATH"), (0x10, "RESOLVE_IN_ROOT"), (0x20, "RESOLVE_CACHED"),
    ]

    static func names(_ flags: Int64, _ table: [(Int64, String)], zero: String) -> [String] {
        if flags == 0 { return [zero] }
        var names: [String] = []
        var rest = flags
        for (bit, name) in table where rest & bit == bit {
            names.append(name)
            rest &= ~bit
        }
        if rest != 0 { names.append("0x" + String(rest, radix: 16)) }
        return names
    }
}
