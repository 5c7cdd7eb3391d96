import ArgumentParser

/// The `bookmark` command: durable file references for scripts.
@main
struct BookmarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bookmark",
        abstract: "Durable references to files on Linux: volumes, file identities, bookmarks.",
        discussion: ExitStatus.helpTable,
        version: "0.1.0",
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
        ]
    )
}

/// Options every subcommand shares.
struct GlobalOptions: ParsableArguments {
    @Flag(help: "Print machine-readable JSON on stdout.")
    var json = false
}
