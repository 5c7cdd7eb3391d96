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

        @Argument(help: "The file or directory.")
        var path: String

        func run() throws {
            let id: FileID
            do {
                id = try FileID.identify(FilePath(path), followSymlinks: !noFollow, responseTimeout: global.volumeTimeout)
            } catch {
                throw Output.fail(error, path: path).exitCode
            }
            let json = FileIDJSON(path: path, id: id)
            if global.json {
                try Output.json(json)
                return
            }
            let rows: [(String, String)] = [
                ("path", path),
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
                ("mount point", json.volume.mountPoint),
                ("identity", id.description),
            ]
            for (name, value) in rows { Output.line(name.padding(toLength: 13, withPad: " ", startingAt: 0) + value) }
        }
    }
}

/// The JSON shape of `bookmark id --json`.
struct FileIDJSON: Encodable {
    var path: String
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

    init(path: String, id: FileID) {
        self.path = path
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
    }

    enum CodingKeys: String, CodingKey {
        case path, kind, inode, generation, birthTime, handle, handleType, subvolume, size, mode, uid, gid, mountID,
            mountIDIsUnique, device, identity, volume
    }
}
