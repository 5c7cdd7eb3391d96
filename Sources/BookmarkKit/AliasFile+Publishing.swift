import SecureFiles
import SystemPackage

/// Writes a small file atomically: a new temporary file in the destination's directory (created
/// exclusively, never through a symlink), its bytes and extended attributes, `fsync`, `rename` over
/// the destination, `fsync` of the directory. A crash at any point leaves the old file or the new
/// one, never a torn file; a symlink at the destination is refused, never followed.
///
/// Internal stop-gap until the secure layer's atomic replace lands; it goes through `SecureFiles`.
enum FilePublisher {
    /// What happened to the extended attributes.
    struct Outcome {
        /// Names of attributes the file system refused (`ENOTSUP`): the file is written without them.
        var refusedAttributes: [String] = []
    }

    /// Replaces (or creates) `path` with `bytes`.
    ///
    /// - Parameters:
    ///   - permissions: The mode of a new file; a replaced file keeps its mode.
    ///   - mustExist: Fail with `notFound` when there is nothing to replace (refreshing).
    static func publish(
        _ bytes: [UInt8], at path: FilePath, attributes: [(String, [UInt8])] = [],
        permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead], mustExist: Bool = false
    ) throws(BookmarkError) -> Outcome {
        let lastKnown = pathBytes(path)
        guard let last = path.lastComponent, last.kind == .regular else {
            throw BookmarkError(.fileSystem, "not a file path: \(escapedBytes(lastKnown))", lastKnownPath: lastKnown)
        }
        var parent = path
        parent.removeLastComponent()
        if parent.isEmpty { parent = "." }
        let name = FilePath(root: nil, [last])
        let temporary = FilePath(".\(last.string.prefix(100)).\(UInt64.random(in: 0 ... .max)).tmp")
        var outcome = Outcome()
        do {
            let directory = try OwnedDescriptor.open(parent, options: [.readOnly, .directory])
            defer { try? directory.close() }
            var mode = permissions
            switch Result(catching: { () throws(FileSystemError) -> OwnedDescriptor in
                try OwnedDescriptor.open(name, relativeTo: directory, options: [.pathOnly, .noFollow])
            }) {
            case .success(let existing):
                defer { try? existing.close() }
                let status = try existing.status()
                guard status.kind == .regular else {
                    throw BookmarkError(
                        .fileSystem,
                        "\(escapedBytes(lastKnown)) is a \(status.kind.rawValue), not a regular file: refusing to replace it",
                        lastKnownPath: lastKnown)
                }
                mode = FilePermissions(rawValue: CModeT(status.permissions & 0o777))
            case .failure(let error):
                guard error.code == .notFound, !mustExist else { throw error }
            }
            let file = try OwnedDescriptor.open(
                temporary, relativeTo: directory, options: [.writeOnly, .create, .exclusive, .noFollow],
                permissions: mode)
            do {
                defer { try? file.close() }
                try file.setPermissions(mode)
                try file.writeAll(bytes)
                for (attribute, value) in attributes {
                    do {
                        try file.setExtendedAttribute(attribute, to: value)
                    } catch {
                        guard error.code == .unsupported || error.errno == .notSupported else { throw error }
                        outcome.refusedAttributes.append(attribute)
                    }
                }
                try file.synchronize()
                try file.close()
                try directory.renameEntry(temporary, to: name)
            } catch {
                try? directory.removeEntry(temporary)
                throw error
            }
            try? directory.synchronize()
            return outcome
        } catch let error as BookmarkError {
            throw error
        } catch let error as FileSystemError {
            throw BookmarkError(error, lastKnownPath: lastKnown)
        } catch {
            throw BookmarkError(.fileSystem, String(describing: error), lastKnownPath: lastKnown)
        }
    }
}
