// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkKit
import Glibc

/// The invocations scripts make most, run without ArgumentParser: `bookmark --version`, and
/// `bookmark resolve SOURCE` with any of `--json`, `--strict`, `--no-search` and `-0`/`--null`
/// (each at most once, before or after SOURCE) and every other option at its default.
///
/// Why: building ArgumentParser's command tree reflects over every subcommand's options, and each
/// first dynamic cast of a type scans the binary's whole protocol-conformance table; in the
/// statically linked binary that was 60 % of a whole `bookmark resolve FILE` process (perf, see
/// Docs/PERFORMANCE.md). The fast path takes only argument lists whose meaning is fixed: exactly
/// `--version`, or `resolve`, one SOURCE that does not start with `-`, and only the boolean flags
/// above, none repeated. Everything else (`-h`, `--`, options with values, typos, several
/// SOURCEs) goes to ArgumentParser, and a test checks that both give the same bytes and status for
/// every form taken here.
enum FastPath {
    /// The `resolve` flags the fast path knows, each with what it sets.
    private enum Flag: CaseIterable {
        case json, strict, noSearch, null

        init?(_ argument: String) {
            switch argument {
            case "--json": self = .json
            case "--strict": self = .strict
            case "--no-search": self = .noSearch
            case "-0", "--null": self = .null
            default: return nil
            }
        }
    }

    /// Runs `arguments` and exits when they are a form handled here; returns when they are not.
    static func runIfHandled(_ arguments: [String]) {
        if arguments == ["--version"] {
            Output.line(BookmarkCommand.configuration.version)
            exit(Output.exitCode(0))
        }
        guard arguments.count >= 2, arguments.count <= 2 + Flag.allCases.count, arguments[0] == "resolve" else { return }
        var flags = Set<Flag>()
        var source: String?
        for argument in arguments.dropFirst() {
            if let flag = Flag(argument) {
                guard flags.insert(flag).inserted else { return }
            } else {
                guard source == nil, !argument.isEmpty, !argument.hasPrefix("-"), argument != "help" else { return }
                source = argument
            }
        }
        guard let source else { return }
        var run = ResolveRun(options: ResolveRun.defaultOptions)
        run.json = flags.contains(.json)
        run.strict = flags.contains(.strict)
        run.options.search = !flags.contains(.noSearch)
        run.terminator = flags.contains(.null) ? 0 : 0x0A
        do {
            try run.runOne(RawArguments.path(source))
            exit(Output.exitCode(0))
        } catch let code as ExitCode {
            exit(Output.exitCode(code.rawValue))
        } catch {
            Output.error(String(describing: error))
            exit(ExitStatus.failure.rawValue)
        }
    }
}
