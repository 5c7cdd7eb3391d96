// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// The package version `bookmark --version` prints, with the commit it was built from.
let packageVersion = "0.2.0-dev"

/// The `bookmark` command: durable file references for scripts.
@main
struct BookmarkCommand: ParsableCommand {
    /// Parses argv as bytes (``RawArguments``), so a path argument that is not UTF-8 reaches the
    /// file system unchanged.
    static func main() {
        let arguments = RawArguments.current()
        FastPath.runIfHandled(arguments)
        main(arguments)
    }

    static let configuration = CommandConfiguration(
        commandName: "bookmark",
        abstract: "Durable references to files on Linux: volumes, file identities, bookmarks.",
        discussion: ExitStatus.helpTable,
        version: "bookmark \(packageVersion) (\(BuildStamp.commit))",
        subcommands: [
            Volumes.self,
            Identify.self,
            Make.self,
            Resolve.self,
            Values.self,
            Inspect.self,
            Alias.self,
            RefreshFiles.self,
            Ref.self,
            Package.self,
            CatalogGroup.self,
        ]
    )
}

/// Options every subcommand shares.
struct GlobalOptions: ParsableArguments {
    @Flag(help: "Print machine-readable JSON on stdout.")
    var json = false

    @Option(
        name: .customLong("volume-timeout"),
        help: ArgumentHelp("Seconds a FUSE or network volume may take to answer before exit 75.", valueName: "seconds"))
    var volumeTimeoutSeconds: Double = 2

    func validate() throws {
        guard volumeTimeoutSeconds.isFinite, volumeTimeoutSeconds > 0, volumeTimeoutSeconds <= 86_400 else {
            throw ValidationError("--volume-timeout must be more than 0 and at most 86400 seconds")
        }
    }

    /// `--volume-timeout` as a duration.
    var volumeTimeout: Duration { .milliseconds(Int64((volumeTimeoutSeconds * 1000).rounded(.up))) }
}
