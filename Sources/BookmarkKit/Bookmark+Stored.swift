// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles
import SystemPackage

extension Bookmark {
    /// Resolves bookmark data as an application holds it at launch: each item is decoded when the
    /// batch reaches it, and only the bookmarks that wait for a volume walk are kept decoded.
    ///
    /// The same steps as ``resolveAll(_:options:volumes:progress:)``. Data that does not decode
    /// gets a ``BookmarkError/Code/corruptData`` result at its place; the others are unaffected.
    ///
    /// - Parameters:
    ///   - data: Bookmark data, one item per bookmark, in any order.
    ///   - options: As for ``resolve(_:volumes:)``.
    ///   - volumes: A mounted-volume table to reuse (the process's shared table when `nil`).
    ///   - progress: As for ``resolveAll(_:options:volumes:progress:)``.
    /// - Returns: One result per item, in the same order.
    public static func resolveAll<Source: Sequence>(
        data: Source, options: ResolutionOptions = ResolutionOptions(), volumes: MountedVolumes? = nil,
        progress: (@Sendable (BatchProgress) -> Void)? = nil
    ) -> [Result<Resolution, BookmarkError>] where Source.Element == [UInt8] {
        var batch: BatchResolution
        do throws(BookmarkError) {
            batch = try BatchResolution(
                options: options, volumes: volumes, expected: data.underestimatedCount, progress: progress)
        } catch {
            return data.map { _ in .failure(error) }
        }
        var chunk: [StoredRecord] = []
        for bytes in data {
            chunk.append(.array(bytes))
            if chunk.count == 4096 {
                batch.add(stored: chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        batch.add(stored: chunk)
        return batch.finish()
    }

    /// Resolves every bookmark stored back to back in the file at `path`, in one batch.
    ///
    /// This is how a library of many bookmarks can keep them: each bookmark's ``data()`` appended
    /// to one file. No separator is needed, because every record's header holds its own length
    /// (bytes 4–7 of `book` data, little-endian). The file is read in chunks of a few megabytes, so
    /// the batch never holds the whole file, and each record is decoded only when the batch
    /// reaches it (see ``resolveAll(data:options:volumes:progress:)``).
    ///
    /// A record that is framed correctly but does not decode gets a
    /// ``BookmarkError/Code/corruptData`` result at its place. A file whose framing breaks (bytes
    /// that are not a `book` header where one must start, a length beyond the decoding limit, or a
    /// last record cut short) cannot be split further, so the call throws, naming the byte offset.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - options: As for ``resolve(_:volumes:)``.
    ///   - volumes: A mounted-volume table to reuse (the process's shared table when `nil`).
    ///   - progress: As for ``resolveAll(_:options:volumes:progress:)``.
    /// - Returns: One result per stored bookmark, in file order.
    /// - Throws: ``BookmarkError``: the file's own error when it cannot be opened or read
    ///   (`notFound`, `permissionDenied`, `fileSystem`), `corruptData` when its framing breaks.
    public static func resolveAll(
        storedIn path: FilePath, options: ResolutionOptions = ResolutionOptions(), volumes: MountedVolumes? = nil,
        progress: (@Sendable (BatchProgress) -> Void)? = nil
    ) throws(BookmarkError) -> [Result<Resolution, BookmarkError>] {
        try resolveStored(path, options: options, volumes: volumes, progress: progress, keepingOffsets: false).results
    }

    /// ``resolveAll(storedIn:options:volumes:progress:)``, and with `keepingOffsets` every
    /// record's byte offset in the file, in file order (for rewriting some of them in place).
    static func resolveStored(
        _ path: FilePath, options: ResolutionOptions, volumes: MountedVolumes?,
        progress: (@Sendable (BatchProgress) -> Void)?, keepingOffsets: Bool
    ) throws(BookmarkError) -> (results: [Result<Resolution, BookmarkError>], offsets: [Int]) {
        var reader = try StoredBookmarkReader(path: path)
        defer { reader.close() }
        var batch = try BatchResolution(options: options, volumes: volumes, expected: 0, progress: progress)
        batch.reserve(reader.fileSize / 600)
        var offsets: [Int] = []
        while try reader.nextRecords(max: 4096, { records in
            if keepingOffsets { offsets += records.map(\.offset) }
            batch.add(stored: records.map { StoredRecord.buffer($0.bytes, offset: $0.offset) })
        }) {}
        return (batch.finish(refetch: reader.record), offsets)
    }
}

/// Splits a file of bookmark data stored back to back into records, reading it a chunk at a time
/// into one buffer it reuses.
struct StoredBookmarkReader {
    /// How much is read at once.
    static let chunk = 4 << 20

    private let file: OwnedDescriptor
    private let path: FilePath
    private var buffer: [UInt8]
    /// The bytes read and not yet consumed are `buffer[position..<filled]`.
    private var position = 0
    private var filled = 0
    /// The file offset of ``buffer``'s first byte.
    private var base = 0
    private var atEnd = false

    init(path: FilePath) throws(BookmarkError) {
        self.path = path
        do {
            file = try Directory.current.open(path, options: [.readOnly])
        } catch {
            throw BookmarkError(error, lastKnownPath: PathBytes(path).bytes)
        }
        buffer = [UInt8](repeating: 0, count: Self.chunk)
    }

    func close() { try? file.close() }

    /// The file's size when it was opened (`fstat`), for sizing what the batch keeps; 0 if unknown.
    var fileSize: Int { (try? file.status()).map { Int(clamping: $0.size) } ?? 0 }

    /// Calls `body` with the next records (at least one, at most `max`: those already read into
    /// the buffer), each as its bytes (valid only during the call) and its offset in the file;
    /// `false` at the end of the file.
    mutating func nextRecords(max: Int, _ body: ([(bytes: UnsafeRawBufferPointer, offset: Int)]) -> Void)
        throws(BookmarkError) -> Bool
    {
        guard try fill(StoredBookmarks.shortest) else { return false }
        let first = try frame()
        var spans = [(start: position, size: first)]
        var cursor = position + first
        // More records only while they are whole in the buffer and framed well; anything else is
        // left for the next call, which refills or throws at the right offset.
        while spans.count < max, filled - cursor >= StoredBookmarks.shortest, let size = plainFrame(at: cursor), filled - cursor >= size {
            spans.append((cursor, size))
            cursor += size
        }
        let fileBase = base
        buffer.withUnsafeBytes { b in
            body(spans.map { (UnsafeRawBufferPointer(rebasing: b[$0.start..<$0.start + $0.size]), fileBase + $0.start) })
        }
        position = cursor
        return true
    }

    /// The header at `start` (`StoredBookmarks.shortest` bytes must be there): whether it starts
    /// with `book`, and the record length it gives.
    private func header(at start: Int) -> (isBook: Bool, length: Int) {
        buffer.withUnsafeBytes { StoredBookmarks.header($0, at: start) }
    }

    /// The length of the well-framed record at `start` (a `book` header, a length within limits).
    private func plainFrame(at start: Int) -> Int? {
        let (isBook, size) = header(at: start)
        return isBook && StoredBookmarks.acceptable(size) ? size : nil
    }

    /// Checks the header at ``position`` and makes the whole record available; its length.
    private mutating func frame() throws(BookmarkError) -> Int {
        let start = position
        let (isBook, size) = header(at: start)
        guard isBook else {
            throw framing("bytes \(Array(buffer[start..<start + 4])) where a \"book\" header must start")
        }
        guard StoredBookmarks.acceptable(size) else { throw framing("a record length of \(size) bytes") }
        guard try fill(size) else { throw framing("the last record is cut short") }
        return size
    }

    /// Makes `count` bytes available from ``position``; `false` when the file ended exactly at a
    /// record boundary. Throws when it ended inside a record.
    private mutating func fill(_ count: Int) throws(BookmarkError) -> Bool {
        while filled - position < count {
            if atEnd {
                if filled == position { return false }
                throw framing("the file ends \(filled - position) bytes into a record")
            }
            // Keep what is left at the front, and make room for a record longer than the buffer.
            if position > 0 {
                let left = filled - position
                let from = position
                buffer.withUnsafeMutableBytes { b in
                    if left > 0, let base = b.baseAddress { base.copyMemory(from: base + from, byteCount: left) }
                }
                base += position
                filled = left
                position = 0
            }
            if buffer.count < count { buffer += [UInt8](repeating: 0, count: count - buffer.count) }
            let from = filled
            let got: Int
            do {
                got = try buffer.withUnsafeMutableBytes { (b: UnsafeMutableRawBufferPointer) throws(FileSystemError) -> Int in
                    try file.read(into: UnsafeMutableRawBufferPointer(rebasing: b[from...]))
                }
            } catch {
                // `withUnsafeMutableBytes` rethrows untyped; the error is the FileSystemError above.
                throw BookmarkError(converting: error, lastKnownPath: PathBytes(path).bytes)
            }
            if got == 0 { atEnd = true } else { filled += got }
        }
        return true
    }

    /// A record read again (`pread`), for a bookmark the quick check did not settle.
    func record(_ source: StoredSource) -> Result<[UInt8], BookmarkError> {
        switch source {
        case .bytes(let bytes): return .success(bytes)
        case .file(let offset, let length):
            do {
                let bytes = try file.read(count: length, at: offset)
                guard bytes.count == length else {
                    return .failure(BookmarkError(
                        .fileSystem, "\(PathBytes(path).escaped) became shorter while it was read (byte offset \(offset))"))
                }
                return .success(bytes)
            } catch {
                return .failure(BookmarkError(error, lastKnownPath: PathBytes(path).bytes))
            }
        }
    }

    private func framing(_ what: String) -> BookmarkError {
        BookmarkError(
            .corruptData,
            "\(PathBytes(path).escaped): not bookmark data stored back to back at byte offset \(base + position): \(what)")
    }
}
