// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkCatalog
import BookmarkKit
import Documents
import Foundation
import SecureFiles

extension BookmarkCommand {
    /// `bookmark package inspect|verify PATH`: a document package as FileWrapper sees it.
    struct Package: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "package",
            abstract: "Inspect or verify a document package (a directory saved as one document).",
            subcommands: [PackageInspect.self, PackageVerify.self])
    }

    /// `bookmark package inspect PATH`: the wrapper tree, keys, kinds and attributes.
    struct PackageInspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inspect",
            abstract: "Print a package's tree as FileWrapper reads it: keys, kinds, sizes, modes, dates, links.",
            discussion: """
                Nothing inside the package is read through a symbolic link. A key differs from the \
                on-disk name only where FileWrapper uniques names that collide case-insensitively.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The package (or a single file).")
        var path: String

        func run() throws {
            let bytes = RawArguments.bytes(of: path)
            let url = FileURLPaths.url(bytes: bytes, isDirectory: false)
            let wrapper: FileWrapper
            do {
                wrapper = try FileWrapper(url: url)
            } catch {
                let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? FileSystemError
                throw Output.fail(underlying ?? error, path: RawArguments.display(path)).exitCode
            }
            let node = PackageNodeJSON(key: String(decoding: PathBytes(bytes).lastComponent ?? bytes, as: UTF8.self), wrapper: wrapper)
            if global.json {
                try Output.json(node)
            } else {
                node.printTree(indent: "")
            }
        }
    }

    /// `bookmark package verify PATH`: every entry readable, no link leaving the package.
    struct PackageVerify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Check that every entry of a package reads to its end and no symbolic link leaves it.",
            discussion: """
                Reports every problem, not just the first: an unreadable entry, a link that is \
                absolute or climbs above the package with '..', a device, FIFO or socket. Exits 0 when \
                there is none, 1 when there are problems.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The package (or a single file).")
        var path: String

        func run() throws {
            let report: PackageVerifier.Report
            do {
                report = try PackageVerifier.verify(RawArguments.filePath(path))
            } catch {
                throw Output.fail(error, path: RawArguments.display(path)).exitCode
            }
            if global.json {
                try Output.json(VerifyJSON(report: report, path: RawArguments.bytes(of: path)))
            } else {
                for problem in report.problems { Output.line(problem.description) }
                Output.line("\(report.entries) entries, \(report.bytes) bytes read, \(report.problems.count) problem(s)")
            }
            if !report.problems.isEmpty { throw ExitStatus.failure.exitCode }
        }
    }
}

/// One node of `package inspect`'s output.
struct PackageNodeJSON: Encodable {
    var key: String
    var filename: String?
    var filenameBase64: String?
    var kind: String
    var size: UInt64?
    var permissions: String?
    var modificationDate: String?
    var inode: UInt64?
    var linkTarget: String?
    var linkTargetBase64: String?
    var children: [PackageNodeJSON]?
    /// The name's and a link's exact bytes, for the plain tree (not in the JSON).
    let nameOnDisk: [UInt8]
    var linkBytes: [UInt8] = []

    enum CodingKeys: String, CodingKey {
        case key, filename, filenameBase64, kind, size, permissions, modificationDate, inode, linkTarget, linkTargetBase64, children
    }

    init(key: String, wrapper: FileWrapper) {
        self.key = key
        let nameBytes = wrapper.filenameBytes
        nameOnDisk = nameBytes ?? Array(key.utf8)
        filename = nameBytes.map(JSONPath.text)
        filenameBase64 = nameBytes.flatMap(JSONPath.base64)
        let attributes = wrapper.fileAttributes
        size = (attributes[FileAttributeKey.size.rawValue] as? NSNumber)?.uint64Value
        permissions = (attributes[FileAttributeKey.posixPermissions.rawValue] as? NSNumber).map { "0" + String($0.intValue, radix: 8) }
        modificationDate = (attributes[FileAttributeKey.modificationDate.rawValue] as? Date).map(ExportText.iso8601Seconds)
        inode = (attributes[FileAttributeKey.systemFileNumber.rawValue] as? NSNumber)?.uint64Value
        if wrapper.isDirectory {
            kind = "directory"
            children = (wrapper.fileWrappers ?? [:]).sorted { $0.key < $1.key }.map { PackageNodeJSON(key: $0.key, wrapper: $0.value) }
            size = nil
        } else if wrapper.isSymbolicLink {
            kind = "symlink"
            let target = wrapper.symbolicLinkDestinationBytes ?? []
            linkBytes = target
            linkTarget = JSONPath.text(target)
            linkTargetBase64 = JSONPath.base64(target)
        } else {
            kind = "regular"
        }
    }

    /// The tree for a person: one entry a line, its name as the exact bytes on disk (as plain output
    /// prints paths), then what it is.
    func printTree(indent: String) {
        var line: [UInt8] = []
        switch kind {
        case "directory": line += Array("/  (\(children?.count ?? 0) entries)".utf8)
        case "symlink": line += Array(" -> ".utf8) + linkBytes
        default: line += Array("  \(size ?? 0) bytes".utf8)
        }
        if let permissions, kind != "symlink" { line += Array("  \(permissions)".utf8) }
        if let modificationDate { line += Array("  \(modificationDate)".utf8) }
        if let filename, filename != key, !indent.isEmpty { line += Array("  (key: \(key))".utf8) }
        Output.record(Array(indent.utf8) + nameOnDisk + line)
        for child in children ?? [] { child.printTree(indent: indent + "  ") }
    }
}

/// `package verify --json`.
struct VerifyJSON: Encodable {
    struct Problem: Encodable {
        var path: String
        var pathBase64: String?
        var problem: String
        var detail: String
    }

    var path: String
    var pathBase64: String?
    var ok: Bool
    var entries: Int
    var bytesRead: UInt64
    var problems: [Problem]

    init(report: PackageVerifier.Report, path: [UInt8]) {
        self.path = JSONPath.text(path)
        pathBase64 = JSONPath.base64(path)
        ok = report.problems.isEmpty
        entries = report.entries
        bytesRead = report.bytes
        problems = report.problems.map { problem in
            let (name, detail): (String, String)
            switch problem.kind {
            case .unreadable(let error): (name, detail) = ("unreadable", error.description)
            case .linkLeavesPackage(let target): (name, detail) = ("linkLeavesPackage", JSONPath.text(target))
            case .unsupportedKind(let kind): (name, detail) = ("unsupportedKind", kind.rawValue)
            }
            return Problem(path: JSONPath.text(problem.path), pathBase64: JSONPath.base64(problem.path), problem: name, detail: detail)
        }
    }
}
