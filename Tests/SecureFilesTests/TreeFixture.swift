// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import Foundation
import SecureFiles
import SystemPackage
import VolumeFixtures

/// A fixture that could not be built.
struct FixtureError: Error, CustomStringConvertible {
    var description: String
}

/// Builds test trees from the data files in `Data/` with plain libc calls (test setup is allowed
/// to use paths; the library under test is not), and runs the kernel's `openat2` as an oracle.
enum TreeFixture {
    static let dataDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Data")

    /// Decodes `\xNN` escapes into bytes.
    static func bytes(_ text: Substring) -> [UInt8] {
        var out: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count, utf8[index + 1] == UInt8(ascii: "x"),
                let value = UInt8(String(decoding: utf8[(index + 2)...(index + 3)], as: UTF8.self), radix: 16)
            {
                out.append(value)
                index += 4
            } else {
                out.append(utf8[index])
                index += 1
            }
        }
        return out
    }

    /// The non-comment lines of a data file.
    static func lines(_ name: String) throws -> [Substring] {
        let text = try String(contentsOf: dataDirectory.appendingPathComponent(name), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    /// Builds the tree described by `name` under `root` (an absolute directory path).
    static func build(_ name: String, under root: String) throws {
        for line in try lines(name) {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let rest = parts[1]
            switch parts[0] {
            case "dir": try makeDirectories(root, bytes(rest))
            case "file": try makeFile(root, bytes(rest), contents: Array("file \(rest)".utf8))
            case "fifo":
                try makeParents(root, bytes(rest))
                try check(mkfifo(cPath(root, bytes(rest)), 0o644), "mkfifo \(rest)")
            case "link":
                let halves = rest.components(separatedBy: " -> ")
                guard halves.count == 2 else { throw FixtureError(description: "bad link line \(line)") }
                let linkPath = bytes(Substring(halves[0]))
                try makeParents(root, linkPath)
                let target = bytes(Substring(halves[1])).map { CChar(bitPattern: $0) } + [0]
                try check(symlink(target, cPath(root, linkPath)), "symlink \(rest)")
            default: throw FixtureError(description: "bad line \(line)")
            }
        }
    }

    static func cPath(_ root: String, _ relative: [UInt8]) -> [CChar] {
        (Array(root.utf8) + [UInt8(ascii: "/")] + relative).map { CChar(bitPattern: $0) } + [0]
    }

    static func check(_ rc: Int32, _ what: String) throws {
        if rc != 0 { throw FixtureError(description: "\(what): \(String(cString: strerror(errno)))") }
    }

    static func makeParents(_ root: String, _ relative: [UInt8]) throws {
        guard let slash = relative.lastIndex(of: UInt8(ascii: "/")) else { return }
        try makeDirectories(root, Array(relative[..<slash]))
    }

    static func makeDirectories(_ root: String, _ relative: [UInt8]) throws {
        var prefix: [UInt8] = []
        for component in relative.split(separator: UInt8(ascii: "/")) {
            prefix += (prefix.isEmpty ? [] : [UInt8(ascii: "/")]) + component
            if mkdir(cPath(root, prefix), 0o755) != 0 && errno != EEXIST { try check(-1, "mkdir") }
        }
    }

    static func makeFile(_ root: String, _ relative: [UInt8], contents: [UInt8], mode: mode_t = 0o644) throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try makeParents(root, relative)
        let fd = open(cPath(root, relative), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { return try check(-1, "create") }
        defer { close(fd) }
        _ = contents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        _ = fchmod(fd, mode)
    }

    /// What a resolution produced, comparable across resolvers.
    enum Outcome: Hashable, CustomStringConvertible {
        case opened(device: UInt32, minor: UInt32, inode: UInt64)
        case failed(Int32)

        var description: String {
            switch self {
            case .opened(let major, let minor, let inode): return "ok(\(major):\(minor):\(inode))"
            case .failed(let errno): return "errno \(errno) (\(String(cString: strerror(errno))))"
            }
        }

        init(fd: Int32) {
            var raw = cls_statx()
            _ = cls_statx(fd, "", cls_at_empty_path(), CLS_STATX_INO, &raw)
            self = .opened(device: raw.stx_dev_major, minor: raw.stx_dev_minor, inode: raw.stx_ino)
        }
    }

    /// The kernel's answer: `openat2(root, path, {flags|O_CLOEXEC, resolve})`, made directly.
    static func kernel(_ rootFD: Int32, _ path: [UInt8], flags: Int32, resolve: UInt64) -> Outcome {
        let cPath = path.map { CChar(bitPattern: $0) } + [0]
        // EAGAIN means a rename somewhere on the system raced a `..` (other tests rename all the
        // time): the kernel asks to retry, so the oracle does, like the library.
        var fd: Int32 = -1
        for _ in 0..<10_000 {
            fd = cls_openat2(rootFD, cPath, UInt64(UInt32(bitPattern: flags | O_CLOEXEC)), 0, resolve)
            if fd >= 0 || errno != EAGAIN { break }
        }
        guard fd >= 0 else { return .failed(errno) }
        defer { close(fd) }
        return Outcome(fd: fd)
    }

    /// The library's answer.
    static func library(_ root: Directory, _ path: [UInt8], flags: Int32, policy: ResolutionPolicy) -> Outcome {
        do {
            let fd = try root.open(bytes: path, options: OwnedDescriptor.OpenOptions(rawValue: flags), policy: policy)
            return Outcome(fd: fd.rawValue ?? -1)
        } catch {
            return .failed(error.errno.rawValue)
        }
    }

    /// A fresh scratch directory on the root file system (ext4 here), mode 0755.
    static func scratch(_ label: String) throws -> String {
        let path = "/var/tmp/swift-bookmarks-secure-\(label)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        _ = chmod(path, 0o755)
        return path
    }

    static func resolveBits(_ policy: ResolutionPolicy) -> UInt64 {
        var bits: UInt64 = CLS_RESOLVE_NO_MAGICLINKS
        bits |= policy.scope == .beneath ? CLS_RESOLVE_BENEATH : CLS_RESOLVE_IN_ROOT
        if policy.refusesSymlinks { bits |= CLS_RESOLVE_NO_SYMLINKS }
        if policy.refusesMountCrossing { bits |= CLS_RESOLVE_NO_XDEV }
        return bits
    }
}
