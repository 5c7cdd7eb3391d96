import BookmarkKit
import FileIdentity
import Foundation
import SecureFiles

/// Printing for every subcommand: JSON with stable (sorted) keys on stdout, diagnostics on stderr.
enum Output {
    /// Encodes `value` as pretty JSON with sorted keys and prints it.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    /// Prints one line to stdout.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Prints `bookmark: message` to stderr.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data(("bookmark: " + text + "\n").utf8))
    }

    /// Reports a failure on stderr and returns the exit status it maps to (the one table).
    static func fail(_ error: any Error, path: String?) -> ExitStatus {
        let prefix = path.map { "\($0): " } ?? ""
        if let error = error as? BookmarkError {
            self.error(prefix + error.description)
            switch error.code {
            case .notFound: return .notFound
            case .volumeNotMounted: return .volumeNotMounted
            case .corruptData: return .corruptData
            case .permissionDenied: return .permissionDenied
            case .volumeNotResponding: return .volumeNotResponding
            case .cancelled, .fileSystem, .objectChanged: return .failure
            }
        }
        if let error = error as? FileSystemError {
            self.error(prefix + error.description)
            return status(of: error)
        }
        if let error = error as? FileIdentityError {
            self.error(prefix + error.description)
            if let cause = error.cause { return status(of: cause) }
            if error.code == .volumeNotResponding { return .volumeNotResponding }
            // The object's mount left the table while it was identified: it is not reachable.
            return error.code == .notInMountTable ? .notFound : .failure
        }
        self.error(prefix + String(describing: error))
        return .failure
    }

    /// The exit status of a failed call.
    private static func status(of error: FileSystemError) -> ExitStatus {
        switch error.code {
        case .notFound, .notDirectory: return .notFound
        case .permissionDenied: return .permissionDenied
        default: return .failure
        }
    }
}

/// The JSON shape of a volume (`bookmark volumes --json`, and `volume` in `bookmark id --json`).
struct VolumeJSON: Encodable {
    var mountPoint: String
    var fsType: String
    var device: String
    var blockDevice: String?
    var uuid: String?
    var uuidSource: String
    var uuidVerified: Bool
    var persistent: Bool
    var label: String?
    var root: String
    var mountID: Int32
    var fsid: String?
    var capacity: UInt64?
    var category: String

    init(_ volume: Volume) {
        mountPoint = PathBytes(volume.mountPoint).escaped
        fsType = volume.fsType
        device = volume.source
        blockDevice = volume.blockDevice
        uuid = volume.uuid
        uuidSource = volume.uuidSource.rawValue
        uuidVerified = volume.uuidVerified
        persistent = volume.isPersistent
        label = volume.label
        root = PathBytes(volume.root).escaped
        mountID = volume.mountID.rawValue
        fsid = volume.fsid?.description
        capacity = volume.capacity
        category = volume.category.rawValue
    }

    // Emit explicit nulls so every key is always present (stable for scripts).
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(mountPoint, forKey: .mountPoint)
        try c.encode(fsType, forKey: .fsType)
        try c.encode(device, forKey: .device)
        try c.encode(blockDevice, forKey: .blockDevice)
        try c.encode(uuid, forKey: .uuid)
        try c.encode(uuidSource, forKey: .uuidSource)
        try c.encode(uuidVerified, forKey: .uuidVerified)
        try c.encode(persistent, forKey: .persistent)
        try c.encode(label, forKey: .label)
        try c.encode(root, forKey: .root)
        try c.encode(mountID, forKey: .mountID)
        try c.encode(fsid, forKey: .fsid)
        try c.encode(capacity, forKey: .capacity)
        try c.encode(category, forKey: .category)
    }

    enum CodingKeys: String, CodingKey {
        case mountPoint, fsType, device, blockDevice, uuid, uuidSource, uuidVerified, persistent, label, root, mountID,
            fsid, capacity, category
    }
}
