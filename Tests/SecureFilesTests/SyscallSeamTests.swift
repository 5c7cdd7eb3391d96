// SPDX-License-Identifier: Apache-2.0
import Foundation
@testable import SecureFiles
import SystemPackage
import Testing

/// The seam: every call is recorded in order, any call can be failed, errors carry call/errno/path.
@Suite("Syscall seam")
final class SyscallSeamTests {
    let directory: FilePath = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("seam-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: path + "/file", contents: Data("abc".utf8))
        return FilePath(path)
    }()

    deinit { try? FileManager.default.removeItem(atPath: directory.string) }

    @Test("calls are recorded in order with descriptor, path bytes and outcome")
    func recordsInOrder() throws {
        let trace = AuditLog(level: .calls)
        try SyscallSeam.$observer.withValue(trace) {
            let dir = try OwnedDescriptor.open(directory, options: [.directory])
            let file = try OwnedDescriptor.open("file", relativeTo: dir)
            _ = try file.status()
            try file.close()
            try dir.close()
        }
        let names = trace.calls.map(\.name)
        #expect(names == ["openat", "openat", "statx", "close", "close"])
        #expect(trace.calls[1].path == Array("file".utf8))
        #expect(trace.calls[1].descriptor == (trace.effects[0].outcome.returnedValue.map(CInt.init)))
        #expect(trace.effects.allSatisfy { if case .returned = $0.outcome { return true } else { return false } })
    }

    @Test("an injected errno fails the call without making it, and the error names call, errno and path")
    func injection() throws {
        let trace = AuditLog(level: .calls, faults: [SyscallFault(call: "openat", pathSuffix: Array("file".utf8), errno: .ioError)])
        let error = try #require(throws: FileSystemError.self) {
            try SyscallSeam.$observer.withValue(trace) {
                _ = try OwnedDescriptor.open(directory.appending("file"))
            }
        }
        #expect(error.errno == .ioError)
        #expect(error.syscall == "openat")
        #expect(error.path == directory.appending("file"))
        #expect(error.code == .io)
        #expect(trace.effects.last?.outcome == .injected(.ioError))
        #expect(String(describing: error).contains("'openat' failed on"))
    }

    @Test("a fault limited to n times fails exactly n calls")
    func limitedFault() throws {
        let trace = AuditLog(level: .calls, faults: [SyscallFault(call: "statx", errno: .resourceTemporarilyUnavailable, times: 2)])
        let results = SyscallSeam.$observer.withValue(trace) {
            (0..<4).map { _ in Result { () throws(FileSystemError) in try FileStatus(path: directory) } }
        }
        #expect(results.map { (try? $0.get()) == nil } == [true, true, false, false])
    }

    @Test("observers are scoped to the task: a sibling task sees nothing")
    func scoped() async throws {
        let trace = AuditLog(level: .calls)
        let path = directory
        await withTaskGroup(of: Void.self) { group in
            group.addTask { SyscallSeam.$observer.withValue(trace) { _ = try? FileStatus(path: path) } }
            group.addTask { _ = try? FileStatus(path: path) }
        }
        #expect(trace.calls.count == 1)
    }

    @Test("library calls (libblkid) pass through the seam too")
    func external() {
        let trace = AuditLog(level: .calls, faults: [SyscallFault(call: "blkid_do_safeprobe", errno: .permissionDenied)])
        var ran = false
        let result = SyscallSeam.$observer.withValue(trace) {
            SyscallSeam.external("blkid_do_safeprobe", path: "/dev/null") {
                ran = true
                return nil
            }
        }
        #expect(result == .permissionDenied)
        #expect(!ran)
    }

    @Test("use after close fails with EBADF instead of touching a reused descriptor number")
    func useAfterClose() throws {
        let file = try OwnedDescriptor.open(directory.appending("file"))
        try file.close()
        try file.close()  // harmless
        let error = try #require(throws: FileSystemError.self) { _ = try file.status() }
        #expect(error.errno == .badFileDescriptor)
        #expect(error.code == .badDescriptor)
    }

    @Test("errno to code table", arguments: [
        (Errno.noSuchFileOrDirectory, FileSystemError.Code.notFound),
        (.permissionDenied, .permissionDenied), (.notPermitted, .permissionDenied), (.fileExists, .exists),
        (.notDirectory, .notDirectory), (.isDirectory, .isDirectory), (.tooManySymbolicLinkLevels, .symlink),
        (.improperLink, .crossDevice), (.inappropriateIOCTLForDevice, .unsupported), (.notSupported, .unsupported),
        (.noFunction, .unsupported), (.staleNFSFileHandle, .stale), (.fileNameTooLong, .nameTooLong),
        (.noSpace, .noSpace), (.readOnlyFileSystem, .readOnly), (.resourceTemporarilyUnavailable, .busy),
        (.badFileDescriptor, .badDescriptor), (Errno(rawValue: 61), .noAttribute), (.ioError, .io),
    ])
    func codes(errno: Errno, code: FileSystemError.Code) {
        #expect(FileSystemError(syscall: "x", errno: errno, path: nil).code == code)
    }

    @Test("non-UTF-8 path bytes are escaped in descriptions, kept exactly in the trace")
    func nonUTF8() throws {
        let name: [UInt8] = [0x66, 0xFF, 0x0A, 0x67]  // "f\xff\ng"
        let path = FilePath(platformString: (pathBytesOf(directory) + [0x2F] + name).map { CChar(bitPattern: $0) } + [0])
        let trace = AuditLog(level: .calls)
        let error = try #require(throws: FileSystemError.self) {
            try SyscallSeam.$observer.withValue(trace) { _ = try FileStatus(path: path) }
        }
        #expect(error.description.contains("f\\xff\\x0ag"))
        #expect(trace.calls.last?.path?.suffix(4) == name[...])
    }
}

func pathBytesOf(_ path: FilePath) -> [UInt8] { PathBytes(path).bytes }

extension SyscallOutcome {
    var returnedValue: Int? {
        if case .returned(let value) = self { return value }
        return nil
    }
}
