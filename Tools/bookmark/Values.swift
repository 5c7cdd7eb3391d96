// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkFormat
import BookmarkKit
import Foundation
import SecureFiles

extension BookmarkCommand {
    /// `bookmark values SOURCE`: what a bookmark recorded, without touching the file system.
    struct Values: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "values",
            abstract: "Print the values stored in a bookmark (last known path, volume, resource values) offline.",
            discussion: "Nothing is resolved and no file or volume is touched. `bookmark inspect` shows every raw key.")

        @OptionGroup var global: GlobalOptions

        @OptionGroup var batch: BatchOptions

        @Argument(help: "Bookmarks: files, or - for standard input (one SOURCE only).")
        var sources: [String] = []

        mutating func validate() throws {
            sources = FoldedArguments.unfold(sources)  // before anything reads the list
            if sources.isEmpty && batch.filesFrom == nil { throw ValidationError("give a SOURCE, or --files-from") }
            if sources.contains("-") && batch.isBatch(sources) {
                throw ValidationError("- (a bookmark on standard input) is for a single SOURCE; use --files-from for many")
            }
        }

        func run() throws {
            let inputs = try batch.inputs(sources)
            guard batch.isBatch(sources) else {
                try runOne(inputs[0])
                return
            }
            // Many: one record per input, its last known path (or JSON Lines), held back in
            // large writes.
            try Output.buffered {
                var statuses: [ExitStatus] = []
                for source in inputs {
                    if Output.stdoutFailure != nil { break }  // the records would be lost
                    switch SourceInput.decode(source, volumeTimeout: global.volumeTimeout) {
                    case .success(let (decoded, _)):
                        let record = decoded.record
                        if global.json {
                            try Output.jsonLine(ValuesJSON(record, source: source))
                        } else {
                            Output.record(record.pathBytes?.bytes ?? [], terminator: batch.terminator)
                        }
                        statuses.append(.success)
                    case .failure(let status):
                        statuses.append(status)
                        try Output.failedRecord(source, status, json: global.json, terminator: batch.terminator)
                    }
                    if statuses.last != .success && !batch.keepGoing { break }
                }
                let worst = ExitStatus.mostSevere(statuses)
                if worst != .success { throw worst.exitCode }
            }
        }

        private func runOne(_ source: PathBytes) throws {
            let decoded: BookmarkSource
            switch SourceInput.decode(source, volumeTimeout: global.volumeTimeout) {
            case .success(let (read, _)): decoded = read
            case .failure(let status): throw status.exitCode
            }
            let record = decoded.record
            if global.json {
                try Output.json(ValuesJSON(record, source: nil))
                return
            }
            let values = Bookmark(record: record).storedValues
            // Paths and names are printed as their bytes; the other values are text.
            let rows: [(String, [UInt8]?)] = [
                ("path", record.pathBytes?.bytes), ("name", record.fileName?.bytes),
                ("volume name", record.volume.name?.bytes), ("volume uuid", values.volumeUUID.map { Array($0.utf8) }),
                ("volume path", record.volume.path?.bytes), ("volume url", record.volume.url?.bytes),
                ("creation date", values.creationDate.map { Array($0.utf8) }),
                ("file id", values.fileID.map { Array(String($0).utf8) }),
                ("creation options", Array(String(values.creationOptions).utf8)),
            ]
            for (name, value) in rows {
                Output.record(Array(name.padding(toLength: 17, withPad: " ", startingAt: 0).utf8) + (value ?? [UInt8(ascii: "-")]))
            }
            for (key, value) in values.resourceValues.sorted(by: { $0.key < $1.key }) {
                Output.line(key + "  " + value)
            }
        }
    }
}

/// The JSON shape of `bookmark values --json`: the stored values, with every path and name
/// lossless (a `…Base64` twin when not valid UTF-8).
struct ValuesJSON: Encodable {
    var path: String?
    var pathBase64: String?
    var name: String?
    var nameBase64: String?
    var fileID: Int64?
    var creationDate: String?
    var isDirectory: Bool
    var volumeName: String?
    var volumeNameBase64: String?
    var volumeUUID: String?
    var volumePath: String?
    var volumePathBase64: String?
    var volumeURL: String?
    var volumeCapacity: Int64?
    var creationOptions: UInt32
    var resourceValues: [String: String]
    var source: String?
    var sourceBase64: String?
    var exitStatus: Int32?

    init(_ record: BookmarkRecord, source: PathBytes?) {
        let values = Bookmark(record: record).storedValues
        path = record.pathBytes.map { JSONPath.text($0.bytes) }
        pathBase64 = record.pathBytes.flatMap { JSONPath.base64($0.bytes) }
        name = record.fileName.map { JSONPath.text($0.bytes) }
        nameBase64 = record.fileName.flatMap { JSONPath.base64($0.bytes) }
        fileID = values.fileID
        creationDate = values.creationDate
        isDirectory = values.isDirectory
        volumeName = record.volume.name.map { JSONPath.text($0.bytes) }
        volumeNameBase64 = record.volume.name.flatMap { JSONPath.base64($0.bytes) }
        volumeUUID = values.volumeUUID
        volumePath = record.volume.path.map { JSONPath.text($0.bytes) }
        volumePathBase64 = record.volume.path.flatMap { JSONPath.base64($0.bytes) }
        volumeURL = record.volume.url.map { JSONPath.text($0.bytes) }
        volumeCapacity = values.volumeCapacity
        creationOptions = values.creationOptions
        resourceValues = values.resourceValues
        self.source = source.map { JSONPath.text($0.bytes) }
        sourceBase64 = source.flatMap { JSONPath.base64($0.bytes) }
        exitStatus = source == nil ? nil : 0
    }
}
