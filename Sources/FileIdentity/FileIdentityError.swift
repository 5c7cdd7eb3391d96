// SPDX-License-Identifier: Apache-2.0
import SecureFiles
import SystemPackage

/// The one error type of FileIdentity: what could not be learned about a file or a volume, and why.
///
/// ``code`` is what a caller branches on. A failed system call is wrapped, not translated: its
/// `FileSystemError` (call, exact errno, path, coarse code) is the ``cause``, so
/// `error.cause?.code == .notFound` asks whether the file was missing. The other codes are
/// failures of FileIdentity's own, which no errno describes.
public struct FileIdentityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, stable across messages.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A file-system call failed: ``FileIdentityError/cause`` says which, with its errno and path.
        public static let fileSystem = Code("fileSystem")
        /// The mount table (`/proc/self/mountinfo`, or the text given to
        /// ``MountTable/init(parsing:)``) has a line that is not a mount entry;
        /// ``FileIdentityError/mountTableLine`` says which.
        public static let malformedMountTable = Code("malformedMountTable")
        /// The mount an object is on is not in this process's mount table, even read afresh: it was
        /// unmounted after the object was opened, or the descriptor came from another mount namespace.
        public static let notInMountTable = Code("notInMountTable")
        /// libblkid finds no single file system on a block device: none, or several conflicting
        /// signatures (`BlockDeviceProbe.probe(device:)`).
        public static let unrecognizedDevice = Code("unrecognizedDevice")
        /// A volume that can block (FUSE, network; `MountEntry.mayBlock`) did not answer within
        /// the response timeout, or an earlier call on it is still waiting.
        /// ``FileIdentityError/mountPoint`` says where it is mounted; the call was abandoned, not
        /// cancelled (see Docs/RELIABILITY.md).
        public static let volumeNotResponding = Code("volumeNotResponding")

        /// The name, for descriptions.
        public var description: String { name }
    }

    /// The classification.
    public var code: Code
    /// A sentence for a person: what could not be done. For ``Code/fileSystem``, the cause's description.
    public var message: String
    /// The failed call, for ``Code/fileSystem``; `nil` for the other codes.
    public var cause: FileSystemError?
    /// The file or table the failure is about, when there is one.
    public var path: FilePath?
    /// For ``Code/malformedMountTable``: the 1-based line that could not be parsed.
    public var mountTableLine: Int?
    /// For ``Code/volumeNotResponding``: where the volume that did not answer is mounted.
    public var mountPoint: [UInt8]?
    /// Where in the library the error was raised (`file:line`).
    public var location: String

    /// An error of FileIdentity's own (not a failed call).
    init(
        _ code: Code, _ message: String, path: FilePath? = nil, mountTableLine: Int? = nil,
        file: StaticString = #fileID, line: UInt = #line
    ) {
        self.code = code
        self.message = message
        self.cause = nil
        self.path = path
        self.mountTableLine = mountTableLine
        self.location = "\(file):\(line)"
    }

    /// Wraps a failed call: ``code`` is ``Code/fileSystem`` and the path is the call's.
    init(_ cause: FileSystemError, file: StaticString = #fileID, line: UInt = #line) {
        self.code = .fileSystem
        self.message = cause.description
        self.cause = cause
        self.path = cause.path
        self.mountTableLine = nil
        self.location = "\(file):\(line)"
    }

    /// For a failed call, its description (`'statx' failed on '/a': No such file or directory …`);
    /// otherwise `mountinfo line 3: …` or the message, with the path.
    public var description: String {
        if let cause { return cause.description }
        var text = message
        if let mountTableLine { text = "mountinfo line \(mountTableLine): " + text }
        if let path { text += " ('\(PathBytes(PathBytes(path).bytes).escaped)')" }
        return text
    }

    /// The description plus where it was raised (and where the cause was), for logs.
    public var detailedDescription: String {
        description + " [at \(location)" + (cause.map { ", cause at \($0.location)" } ?? "") + "]"
    }

    /// Runs SecureFiles calls, wrapping their failure as ``Code/fileSystem``.
    static func wrapping<T>(
        file: StaticString = #fileID, line: UInt = #line, _ body: () throws(FileSystemError) -> T
    ) throws(FileIdentityError) -> T {
        do throws(FileSystemError) {
            return try body()
        } catch {
            throw FileIdentityError(error, file: file, line: line)
        }
    }
}
