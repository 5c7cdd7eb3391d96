import ArgumentParser
import BookmarkFormat
import BookmarkKit
import Foundation

extension BookmarkCommand {
    /// `bookmark values SOURCE`: what a bookmark recorded, without touching the file system.
    struct Values: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the values stored in a bookmark (last known path, volume, resource values) offline.",
            discussion: "Nothing is resolved and no file or volume is touched. `bookmark inspect` shows every raw key.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The bookmark: a file, or - for standard input.")
        var source: String

        func run() throws {
            let (decoded, _) = try SourceInput.decode(source, volumeTimeout: global.volumeTimeout)
            let values = Bookmark(record: decoded.record).storedValues
            if global.json {
                try Output.json(values)
                return
            }
            let rows: [(String, String?)] = [
                ("path", values.path), ("name", values.name), ("volume name", values.volumeName),
                ("volume uuid", values.volumeUUID), ("volume path", values.volumePath),
                ("volume url", values.volumeURL), ("creation date", values.creationDate),
                ("file id", values.fileID.map(String.init)), ("creation options", String(values.creationOptions)),
            ]
            for (name, value) in rows { Output.line(name.padding(toLength: 17, withPad: " ", startingAt: 0) + (value ?? "-")) }
            for (key, value) in values.resourceValues.sorted(by: { $0.key < $1.key }) {
                Output.line(key + "  " + value)
            }
        }
    }
}
