// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Glibc

/// The package version `bookmark --version` prints, with the commit it was built from.
let packageVersion = "0.2.0-dev"

/// The `bookmark` command: durable file references for scripts.
@main
struct BookmarkCommand: ParsableCommand {
    /// Parses argv as bytes (``RawArguments``), so a path argument that is not UTF-8 reaches the
    /// file system unchanged.
    static func main() {
        StandardDescriptors.holdClosedOnes()
        let arguments = RawArguments.current()
        if let cluster = helpCluster(in: arguments) {
            // ArgumentParser reads such an argument as a cluster of short flags holding `-h`: it
            // prints help on stdout and exits 0. A script that passes a file named `-dash.txt`
            // without `--` would take that for success (and store the help text).
            Output.error(refusalOfCluster(RawArguments.display(cluster), subcommand: subcommandPath(in: arguments)))
            Self.exit(withError: ExitStatus.usage.exitCode)
        }
        if let unknown = unknownHelpTopic(in: arguments) {
            // ArgumentParser's `help` shows the top-level help and exits 0 for a name it does not
            // know: a typo would look like success.
            Output.error("help: no subcommand '\(RawArguments.display(unknown))'; `bookmark --help` lists them")
            Self.exit(withError: ExitStatus.usage.exitCode)
        }
        FastPath.runIfHandled(arguments)
        if let missing = missingSubcommand(in: arguments) {
            // After the fast path, which never takes these (its start-up stays as it was).
            // ArgumentParser says "Unexpected argument 'badcmd'" for an unknown name, and prints
            // the help on stdout with exit 0 when no name is given: a script that lost its
            // subcommand would take the help text for output, and the run for a success.
            let group = ["bookmark"] + missing.group
            if let word = missing.word {
                Output.error("no subcommand '\(RawArguments.display(word))'\(missing.group.isEmpty ? "" : " in '\(group.joined(separator: " "))'"); "
                    + "`\(group.joined(separator: " ")) --help` lists them")
            } else {
                Output.write(Array((helpMessage(for: missing.command) + "\n").utf8), to: STDERR_FILENO)
                Output.error("\(group.joined(separator: " ")) needs a subcommand (listed above)")
            }
            Self.exit(withError: ExitStatus.usage.exitCode)
        }
        do {
            var command = try parseAsRoot(FoldedArguments.fold(arguments))
            try command.run()
            Output.flush()
            // A run whose output could not be written did not succeed (Output.writeNow said why).
            if Output.stdoutFailure != nil { Self.exit(withError: ExitCode(Output.exitCode(0))) }
        } catch {
            Output.flush()
            if Output.stdoutFailure != nil { Self.exit(withError: ExitCode(Output.exitCode(exitCode(for: error).rawValue))) }
            // ArgumentParser says only "Unknown option '-name'" (or '-m' for `-mtime`, one letter
            // of the cluster it tried), and when the word was the only source it runs the
            // command's validation first, which then says "give a SOURCE". Such a word is never
            // taken as an argument, so for any usage error the advice is about it, as for a
            // cluster holding `-h`.
            if let argument = (singleDashWords(in: arguments) + unknownShortFlags(in: arguments)).first,
                exitCode(for: error) == .validationFailure
            {
                Output.error(refusalOfCluster(RawArguments.display(argument), subcommand: subcommandPath(in: arguments)))
                Self.exit(withError: ExitStatus.usage.exitCode)
            }
            Self.exit(withError: error)
        }
    }

    /// A group (`bookmark`, `bookmark package`, `bookmark catalog`) given no subcommand, or a
    /// word where its subcommand goes that names none (`word`); `nil` when the arguments name a
    /// command that runs, or ask for help or the version (an option first: ArgumentParser
    /// answers those).
    static func missingSubcommand(in arguments: [String]) -> (group: [String], command: any ParsableCommand.Type, word: String?)? {
        if arguments.first == "help" { return nil }
        let path = subcommandPath(in: arguments)
        var command: any ParsableCommand.Type = BookmarkCommand.self
        for name in path {
            guard let next = command.configuration.subcommands.first(where: { $0._commandName == name }) else { return nil }
            command = next
        }
        guard !command.configuration.subcommands.isEmpty else { return nil }
        guard path.count < arguments.count else { return (path, command, nil) }
        let next = arguments[path.count]
        if next.hasPrefix("-") { return nil }  // --help, --version, or an option ArgumentParser refuses
        return (path, command, next)
    }

    /// In `bookmark help NAME…`, the first NAME that is not a subcommand there (`nil` when every
    /// NAME is one, or the arguments are not a `help` command).
    static func unknownHelpTopic(in arguments: [String]) -> String? {
        guard arguments.first == "help" else { return nil }
        let names = arguments.dropFirst().filter { !$0.hasPrefix("-") }
        let known = subcommandPath(in: Array(names)).count
        return known < names.count ? names[names.startIndex + known] : nil
    }

    /// The first ``singleDashWords(in:)`` that holds an `h` (`-dash.txt`, not `-h` or `-0h`):
    /// one ArgumentParser would read as a cluster of short flags asking for help.
    static func helpCluster(in arguments: [String]) -> String? {
        singleDashWords(in: arguments).first { $0.contains("h") }
    }

    /// The arguments before `--` that start with one `-`, are longer than a short flag, are not
    /// numbers, and hold a character that is none of the short flags (`-0`, `-i`, `-h`): file
    /// names or `find` PATTERNs that ArgumentParser would read as options, never as arguments.
    ///
    /// Every `bookmark` process runs this, so it compares characters directly: a `Set<Character>`
    /// here cost each start about 4 % (its metadata is built from a mangled name, and the first
    /// conformance look-up of a static binary scans all of its 6,000 conformances).
    static func singleDashWords(in arguments: [String]) -> [String] {
        var words: [String] = []
        for argument in arguments {
            if argument == "--" { break }
            guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 2, Double(argument) == nil else { continue }
            if argument.dropFirst().contains(where: { $0 != "0" && $0 != "i" && $0 != "h" }) { words.append(argument) }
        }
        return words
    }

    /// The two-character arguments before `--` that start with `-` and name no short flag of any
    /// subcommand (`-x`; not `-o`, `-0`, `-i`, `-h`, nor a digit): Docs/CLI.md gives them the
    /// "starts with '-'" message too when the command line fails. ``singleDashWords(in:)`` leaves
    /// them out (it runs on every start, for `-h` clusters, where a lone letter is no cluster);
    /// `make -x` said "give a PATH, or --files-from".
    static func unknownShortFlags(in arguments: [String]) -> [String] {
        var words: [String] = []
        for argument in arguments {
            if argument == "--" { break }
            let characters = Array(argument)
            guard characters.count == 2, characters[0] == "-", let letter = characters.last else { continue }
            if !"0ioh-".contains(letter) && !letter.isNumber { words.append(argument) }
        }
        return words
    }

    /// The message for an argument refused by ``helpCluster(in:)`` (or any of
    /// ``singleDashWords(in:)`` when the command line fails), with advice that works for
    /// the subcommand it was given to: a file name can also be written `./NAME`, but a
    /// `catalog find` PATTERN cannot (`./-dash.txt` is a path glob, which matches nothing there).
    static func refusalOfCluster(_ shown: String, subcommand: [String]) -> String {
        if subcommand == ["catalog", "find"] {
            return "unknown option '\(shown)'; a PATTERN that starts with '-' goes after '--', behind every option "
                + "(bookmark catalog find CATALOG -- \(shown))"
        }
        let example = subcommand.isEmpty || subcommand == ["make"] ? "make -o OUT" : subcommand.joined(separator: " ")
        return "unknown option '\(shown)'; a file whose name starts with '-' goes after '--', "
            + "behind every option (bookmark \(example) -- \(shown)), or as ./\(shown)"
    }

    /// The subcommand named by the leading arguments (`["catalog", "find"]`), as far as they name one.
    static func subcommandPath(in arguments: [String]) -> [String] {
        var path: [String] = []
        var level = configuration.subcommands
        for argument in arguments {
            guard let command = level.first(where: { $0._commandName == argument }) else { break }
            path.append(argument)
            level = command.configuration.subcommands
        }
        return path
    }

    static let configuration = CommandConfiguration(
        commandName: "bookmark",
        abstract: "Durable references to files on Linux: volumes, file identities, bookmarks.",
        discussion: ExitStatus.helpTable + "\n\n" + DocPages.whereTheyAre,
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
