// SPDX-License-Identifier: Apache-2.0

/// Where the pages that `--help` and the man pages refer to are: `Tools/install` puts every
/// `Docs/*.md` page in `PREFIX/share/doc/swift-bookmarks/` (`/usr/local` by default). The help
/// named `Docs/RESOLUTION.md`, a path that exists only in the source tree.
enum DocPages {
    /// The folder the pages are installed in, under the default prefix.
    static let installed = "/usr/local/share/doc/swift-bookmarks"

    /// `RESOLUTION.md (in PREFIX/share/doc/swift-bookmarks/, /usr/local by default; Docs/ in the source)`.
    static func cite(_ page: String) -> String {
        "\(page) (in PREFIX/share/doc/swift-bookmarks/, \(installed)/ by default; Docs/ in the source)"
    }

    /// The line of the top-level help that says where the documentation is.
    static var whereTheyAre: String {
        "Documentation: CLI.md (every subcommand, the JSON, script examples), RESOLUTION.md and CATALOG.md, "
            + "in PREFIX/share/doc/swift-bookmarks/ (PREFIX is /usr/local unless Tools/install was given --prefix), "
            + "or Docs/ in the source."
    }
}
