// SPDX-License-Identifier: Apache-2.0

/// Why a regular expression was refused, in a few words: NSRegularExpression's error on Linux
/// says only `Error Domain=NSCocoaErrorDomain Code=2048 "The value is invalid."`, which tells
/// a person nothing about what to fix. The common mistakes are found here; anything else is
/// said to be outside ICU's syntax.
enum CatalogRegexReason {
    static func reason(_ expression: String) -> String {
        var depth = 0
        var inSet = false
        var escaped = false
        var previous: Character?
        for character in expression {
            defer { previous = escaped ? nil : character }
            if escaped {
                escaped = false
                continue
            }
            switch character {
            case "\\": escaped = true
            case "[" where !inSet: inSet = true
            case "]" where inSet: inSet = false
            case "(" where !inSet: depth += 1
            case ")" where !inSet:
                depth -= 1
                if depth < 0 { return "a ')' with no '(' before it" }
            case "*", "+", "?", "{":
                // `(?` opens a group of another kind (`(?i)`, `(?<name>`), not a repetition.
                if !inSet, previous == nil || previous == "|" || (previous == "(" && character != "?") {
                    return "nothing to repeat before '\(character)'"
                }
            default: break
            }
        }
        if escaped { return "it ends with a lone backslash" }
        if inSet { return "a '[' with no ']'" }
        if depth > 0 { return "a '(' with no ')'" }
        return "not in ICU's regular expression syntax"
    }
}
