// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkFormat
import Foundation

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

        func run() throws {
            // A library file (bookmarks stored back to back) is inspected: its first bookmark,
            // and a line saying what follows it.
            let (decoded, _) = try SourceInput.decode(source, volumeTimeout: global.volumeTimeout, allowTrailing: true)
            let inspection = BookmarkInspection(source: decoded, origin: RawArguments.display(source))
            if global.json {
                Output.line(inspection.jsonText)
            } else {
                // Through Output like every other command: FileHandle's write traps on a failed
                // write (a full disk, a closed stdout), where Output says so and exits 1.
                Output.write(Array(inspection.text.utf8), to: STDOUT_FILENO)
            }
        }
    }
}
