// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkKit
import Glibc

/// The two invocations scripts make most, run without ArgumentParser: `bookmark --version` and
/// `bookmark resolve SOURCE` with every default.
///
/// Why: building ArgumentParser's command tree reflects over every subcommand's options, and each
/// first dynamic cast of a type scans the binary's whole protocol-conformance table; in the
/// statically linked binary that was 60 % of a whole `bookmark resolve FILE` process (perf, see
/// Docs/PERFORMANCE.md). The fast path takes only argument lists whose meaning is fixed: exactly
/// `--version`, or exactly `resolve` and one SOURCE that does not start with `-`. Everything else,
/// `-h` and typos included, goes to ArgumentParser, and a test checks that both give the same
/// bytes and status for the forms taken here.
enum FastPath {
    /// Runs `arguments` and exits when they are a form handled here; returns when they are not.
    static func runIfHandled(_ arguments: [String]) {
        if arguments == ["--version"] {
            Output.line(BookmarkCommand.configuration.version)
            exit(0)
        }
        if arguments.count == 2, arguments[0] == "resolve", let source = arguments.last,
            !source.isEmpty, !source.hasPrefix("-"), source != "help"
        {
            let run = ResolveRun(options: ResolveRun.defaultOptions)
            do {
                try run.runOne(RawArguments.path(source))
                exit(0)
            } catch let code as ExitCode {
                exit(code.rawValue)
            } catch {
                Output.error(String(describing: error))
                exit(ExitStatus.failure.rawValue)
            }
        }
    }
}
