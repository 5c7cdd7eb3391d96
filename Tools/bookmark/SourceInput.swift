import ArgumentParser
import BookmarkFormat
import Foundation
import SecureFiles
import SystemPackage

/// Reading a SOURCE argument: a file of raw bookmark bytes, base64 text, an alias file, or `-`.
enum SourceInput {
    /// Largest input read (the decoder's default limit).
    static let readLimit = BookmarkDecodingLimits.default.maxInputSize

    /// The raw bytes of `source` (a path, or `-` for stdin), or an exit after saying why on stderr.
    static func bytes(of source: String) throws -> [UInt8] {
        if source == "-" {
            var input: [UInt8] = []
            while true {
                let chunk = FileHandle.standardInput.readData(ofLength: 1 << 16)
                if chunk.isEmpty { break }
                input += chunk
                guard input.count <= readLimit else {
                    Output.error("-: input exceeds the limit of \(readLimit) bytes")
                    throw ExitStatus.corruptData.exitCode
                }
            }
            return input
        }
        do {
            let fd = try Directory.current.open(FilePath(source), options: [.readOnly, .nonBlocking])
            return try fd.readToEnd(limit: readLimit)
        } catch {
            throw Output.fail(error, path: source).exitCode
        }
    }

    /// `source` decoded, or exit 5 with the reason.
    static func decode(_ source: String) throws -> (BookmarkSource, [UInt8]) {
        let bytes = try bytes(of: source)
        switch Result(catching: { () throws(BookmarkFormatError) -> BookmarkSource in try BookmarkSource(decoding: bytes) }) {
        case .success(let decoded): return (decoded, bytes)
        case .failure(let error):
            Output.error("\(source): corrupt bookmark data: \(error.description)")
            throw ExitStatus.corruptData.exitCode
        }
    }
}
