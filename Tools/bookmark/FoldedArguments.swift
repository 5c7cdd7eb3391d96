// SPDX-License-Identifier: Apache-2.0

/// Long lists of SOURCEs or PATHs, handed to ArgumentParser as a few arguments.
///
/// ArgumentParser's parse of an array argument is quadratic in its length (each value's origin is
/// added to a set that is copied for the next value, and each value is removed from the split
/// list on its own): `bookmark resolve DIR/*` took 0.21 s for 2,000 bookmarks, 0.71 s for 4,000
/// and 1.1 s for 5,000, against 0.1 s for the same 5,000 through `--files-from`; a folder of
/// 50,000 would have taken minutes before the first one was resolved.
///
/// So before parsing, each run of arguments that can only be inputs is folded into one argument,
/// and the command unfolds it in its `validate()`, before anything reads the list. An argument is
/// certainly an input when it does not start with `-` (nor is `help`) and neither does the one
/// before it (which is the subcommand, another input, or the value of an option: no option of
/// these commands takes more than one value), or when it comes after `--`. The folded argument
/// is its arguments joined by NUL behind a leading NUL: no argument from `argv` can hold a NUL, so
/// unfolding gives back exactly the arguments folded, in their order, and nothing else can look
/// folded. Short lists are left as they are.
enum FoldedArguments {
    /// The subcommands whose only positional argument is one list of inputs.
    static let listCommands: Set<String> = ["make", "resolve", "values", "id", "refresh"]

    /// Argument lists this long or longer are folded; shorter ones are parsed as given.
    static let threshold = 32

    private static let separator: Unicode.Scalar = "\u{0}"

    /// `arguments` (after the program name) with each run of two or more certain inputs folded
    /// into one argument, or `arguments` unchanged when they are short or not a list command's.
    static func fold(_ arguments: [String]) -> [String] {
        guard arguments.count >= threshold, let command = arguments.first, listCommands.contains(command) else {
            return arguments
        }
        var result: [String] = [command]
        result.reserveCapacity(threshold)
        var run: [String] = []
        func endRun() {
            if run.count >= 2 {
                result.append(folded(run))
            } else {
                result.append(contentsOf: run)
            }
            run.removeAll(keepingCapacity: true)
        }
        var previousIsOption = false
        var afterTerminator = false
        for argument in arguments.dropFirst() {
            if afterTerminator {
                run.append(argument)
                continue
            }
            if argument == "--" {
                endRun()
                result.append(argument)
                afterTerminator = true
                continue
            }
            let isOption = argument.hasPrefix("-")
            if !isOption && !previousIsOption && argument != "help" {
                run.append(argument)
            } else {
                endRun()
                result.append(argument)
            }
            previousIsOption = isOption
        }
        endRun()
        return result
    }

    /// `values` with every folded argument replaced by the arguments it holds.
    static func unfold(_ values: [String]) -> [String] {
        guard values.contains(where: { $0.unicodeScalars.first == separator }) else { return values }
        var result: [String] = []
        for value in values {
            guard value.unicodeScalars.first == separator else {
                result.append(value)
                continue
            }
            let parts = value.unicodeScalars.dropFirst().split(separator: separator, omittingEmptySubsequences: false)
            for part in parts { result.append(String(String.UnicodeScalarView(part))) }
        }
        return result
    }

    private static func folded(_ run: [String]) -> String {
        // One allocation: appending to a `String.UnicodeScalarView` copied it each time.
        var result = ""
        result.reserveCapacity(run.reduce(0) { $0 + $1.utf8.count + 1 })
        for argument in run {
            result.unicodeScalars.append(separator)
            result.append(argument)
        }
        return result
    }
}
