// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage

extension BookmarkCommand {
    /// `bookmark id PATH`: the identity of a file.
    struct Identify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "id",
            abstract: "Print a file's identity: inode, generation, birth time, handle and volume.")

        @OptionGroup var global: GlobalOptions

        @Flag(name: .customLong("no-follow"), help: "Identify a trailing symlink itself, not its target.")
        var noFollow = false

        @OptionGroup var batch: BatchOptions

        @Argument(help: "Files or directories.")
        var paths: [String] = []

        mutating func validate() throws {
            paths = FoldedArguments.unfold(paths)  // before anything reads the list
            if paths.isEmpty && batch.filesFrom == nil { throw ValidationError("give a PATH, or --files-from") }
        }

        func run() throws {
            let inputs = try batch.inputs(paths)
            guard batch.isBatch(paths) else {
                try runOne(inputs[0])
                return
            }
            // Many: one record per input, the identity's one-line form (or JSON Lines), held back in
            // large writes.
            try Output.buffered {
                let progress = BatchProgressLine(verb: "identifying", total: inputs.count)
                defer { progress.finish() }
                var statuses: [ExitStatus] = []
                for (index, path) in inputs.enumerated() {
                    if Output.stdoutFailure != nil { break }  // the records would be lost
                    progress.update(done: index, total: inputs.count)
                    switch identify(path) {
                    case .success(let id):
                        if global.json {
                            var json = FileIDJSON(path: path.bytes, id: id)
                            json.exitStatus = 0
                            try Output.jsonLine(json)
                        } else {
                            Output.record(Array(id.description.utf8), terminator: batch.terminator)
                        }
                        statuses.append(.success)
                    case .failure(let status):
                        statuses.append(status)
                        try Output.failedRecord(path, status, json: global.json, terminator: batch.terminator)
                    }
                    if statuses.last != .success && !batch.keepGoing { break }
                }
                let worst = ExitStatus.mostSevere(statuses)
                if worst != .success { throw worst.exitCode }
            }
        }

        private func identify(_ path: PathBytes) -> Result<FileID, ExitStatus> {
            do {
                return .success(try FileID.identify(
                    path.filePath, followSymlinks: !noFollow, responseTimeout: global.volumeTimeout))
            } catch {
                return .failure(Output.fail(error, path: path.escaped))
            }
        }

        private func runOne(_ path: PathBytes) throws {
            let id: FileID
            switch identify(path) {
            case .success(let found): id = found
            case .failure(let status): throw status.exitCode
            }
            let json = FileIDJSON(path: path.bytes, id: id)
            if global.json {
                try Output.json(json)
                return
            }
            // The path row carries the bytes as given; every other row is ASCII.
            Output.record(Array("path         ".utf8) + path.bytes)
            let rows: [(String, String)] = [
                ("kind", json.kind),
                ("inode", String(json.inode)),
                ("generation", json.generation.map(String.init) ?? "unknown"),
                ("birth time", json.birthTime ?? "unknown"),
                ("handle", json.handle.map { "type \(json.handleType ?? 0) \($0)" } ?? "none"),
                ("subvolume", json.subvolume.map(String.init) ?? "-"),
                ("size", String(json.size)),
                ("mode", json.mode),
                ("owner", "\(json.uid):\(json.gid)"),
                ("mount id", "\(json.mountID)\(json.mountIDIsUnique ? " (unique)" : "")"),
                ("device", json.device),
                ("volume uuid", "\(json.volume.uuid ?? "none") (\(json.volume.uuidSource))"),
            ]
            for (name, value) in rows { Output.line(name.padding(toLength: 13, withPad: " ", startingAt: 0) + value) }
            Output.record(Array("mount point  ".utf8) + id.volume.mountPoint)
            Output.line("identity     " + id.description)
        }
    }
}

/// The JSON shape of `bookmark id --json`.
struct FileIDJSON: Encodable {
    var path: String
    var pathBase64: String?
    var kind: String
    var inode: UInt64
    var generation: UInt32?
    var birthTime: String?
    var handle: String?
    var handleType: Int32?
    var subvolume: UInt64?
    var size: UInt64
    var mode: String
    var uid: UInt32
    var gid: UInt32
    var mountID: UInt64
    var mountIDIsUnique: Bool
    var device: String
    var identity: String
    var volume: VolumeJSON
    /// In a batch (JSON Lines): 0 for a record that succeeded.
    var exitStatus: Int32?

    init(path: [UInt8], id: FileID) {
        self.path = JSONPath.text(path)
        pathBase64 = JSONPath.base64(path)
        kind = id.kind.rawValue
        inode = id.inode
        generation = id.generation
        birthTime = id.birthTime?.description
        handle = id.handle?.hex
        handleType = id.handle?.type
        subvolume = id.subvolume
        size = id.size
        mode = "0" + String(id.mode & 0o7777, radix: 8)
        uid = id.uid
        gid = id.gid
        // The id statx reports, as before the ids were typed: the unique one where the kernel has it.
        mountID = id.uniqueMountID?.rawValue ?? UInt64(UInt32(bitPattern: id.mountID.rawValue))
        mountIDIsUnique = id.uniqueMountID != nil
        device = id.device.description
        identity = id.description
        volume = VolumeJSON(id.volume)
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path)
        try c.encodeIfPresent(pathBase64, forKey: .pathBase64)
        try c.encode(kind, forKey: .kind)
        try c.encode(inode, forKey: .inode)
        try c.encode(generation, forKey: .generation)
        try c.encode(birthTime, forKey: .birthTime)
        try c.encode(handle, forKey: .handle)
        try c.encode(handleType, forKey: .handleType)
        try c.encode(subvolume, forKey: .subvolume)
        try c.encode(size, forKey: .size)
        try c.encode(mode, forKey: .mode)
        try c.encode(uid, forKey: .uid)
        try c.encode(gid, forKey: .gid)
        try c.encode(mountID, forKey: .mountID)
        try c.encode(mountIDIsUnique, forKey: .mountIDIsUnique)
        try c.encode(device, forKey: .device)
        try c.encode(identity, forKey: .identity)
        try c.encode(volume, forKey: .volume)
        if let exitStatus {
            try c.encode(JSONPath.text(Array(path.utf8)), forKey: .source)
            try c.encodeIfPresent(pathBase64, forKey: .sourceBase64)
            try c.encode(exitStatus, forKey: .exitStatus)
        }
    }

    enum CodingKeys: String, CodingKey {
        case path, pathBase64, source, sourceBase64, exitStatus, kind, inode, generation, birthTime, handle, handleType, subvolume, size, mode, uid, gid, mountID,
            mountIDIsUnique, device, identity, volume
    }
}
