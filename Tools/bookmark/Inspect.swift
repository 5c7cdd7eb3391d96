import ArgumentParser
import BookmarkFormat
import Foundation
import SecureFiles
import SystemPackage

extension BookmarkCommand {
    /// `bookmark inspect SOURCE`: everything stored in bookmark data, without resolving it.
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inspect",
            abstract: "Print every TOC and key of bookmark data, an alias file or an alias record.",
            discussion: """
                SOURCE is a file holding raw bookmark data, base64 text of it, a Finder alias file \
                (56-byte book…mark header), or a legacy alis record (version 2 or 3); `-` reads \
                standard input. Nothing is resolved and no volume is touched. Corrupt input exits \
                with status 5 and says why, and at which byte offset, on stderr.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The file to inspect, or - for standard input.")
        var source: String

        /// Largest input read (matches the decoder's default limit).
        static let readLimit = BookmarkDecodingLimits.default.maxInputSize

        func run() throws {
            let bytes: [UInt8]
            if source == "-" {
                // Read in chunks so an endless stdin stops at the limit instead of filling memory.
                var input: [UInt8] = []
                while true {
                    let chunk = FileHandle.standardInput.readData(ofLength: 1 << 16)
                    if chunk.isEmpty { break }
                    input += chunk
                    guard input.count <= Self.readLimit else {
                        Output.error("-: input exceeds the limit of \(Self.readLimit) bytes")
                        throw ExitStatus.corruptData.exitCode
                    }
                }
                bytes = input
            } else {
                do {
                    let fd = try OwnedDescriptor.open(FilePath(source), options: [.readOnly, .nonBlocking])
                    bytes = try fd.readToEnd(limit: Self.readLimit)
                } catch {
                    throw Output.fail(error, path: source).exitCode
                }
            }
            let decoded: BookmarkSource
            switch Result(catching: { () throws(BookmarkFormatError) -> BookmarkSource in
                try BookmarkSource(decoding: bytes)
            }) {
            case .success(let s): decoded = s
            case .failure(let error):
                Output.error("\(source): corrupt bookmark data: \(error.description)")
                throw ExitStatus.corruptData.exitCode
            }
            let inspection = BookmarkInspection(source: decoded, origin: source)
            if global.json {
                Output.line(inspection.jsonText)
            } else {
                FileHandle.standardOutput.write(Data(inspection.text.utf8))
            }
        }
    }
}
