// SPDX-License-Identifier: Apache-2.0
import BookmarkCatalog
import Foundation
import Testing
import VolumeFixtures

/// Headless Chromium for the HTML export's tests, driven through the DevTools protocol by
/// `Browser/cdp_driver.py` (Python standard library only): real mouse clicks and typed text, the
/// page's DOM read back, screenshots.
enum ExportBrowser {
    /// The package's top folder.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let driver = packageRoot.appendingPathComponent("Tests/BookmarkCatalogTests/Browser/cdp_driver.py").path
    /// Where screenshots are kept (`.build` is ignored by git).
    static let artifacts = packageRoot.appendingPathComponent(".build/test-artifacts")

    /// Why the browser tests cannot run here, or `nil` when Chromium starts and answers.
    static let unavailableReason: String? = {
        guard Shell.has("python3") else { return "python3 is not installed (the browser tests drive Chromium with it)" }
        guard Shell.has("chromium") else { return "chromium is not installed (Tools/install-deps installs it)" }
        do {
            let probe = try Shell.run(["python3", driver, "probe"])
            // The driver's message starts "chromium does not start: ".
            guard probe.status == 0 else { return probe.stderr.trimmingCharacters(in: .whitespacesAndNewlines) }
            return nil
        } catch {
            return "the Chromium probe could not run: \(error)"
        }
    }()

    /// One thing to do in the page.
    enum Step {
        /// The value of a JavaScript expression (a promise is awaited).
        case eval(String, id: String)
        /// Polls the expression until it is truthy; the result has its value and how long it took.
        case waitFor(String, id: String, timeout: Double = 20)
        /// A real mouse click at the centre of the element a CSS selector finds.
        case click(selector: String, id: String)
        /// A real mouse click at the centre of the element a JavaScript expression returns.
        case clickElement(String, id: String)
        /// Clicks the element, then types `text` into it.
        case type(selector: String, text: String, id: String)
        /// A key press (`Enter`, `Escape`).
        case key(String, id: String)
        /// A PNG of the viewport.
        case screenshot(path: String, id: String)

        var json: [String: Any] {
            switch self {
            case .eval(let js, let id): ["op": "eval", "js": js, "id": id]
            case .waitFor(let js, let id, let timeout): ["op": "waitFor", "js": js, "id": id, "timeout": timeout]
            case .click(let selector, let id): ["op": "click", "selector": selector, "id": id]
            case .clickElement(let js, let id): ["op": "click", "js": js, "id": id]
            case .type(let selector, let text, let id): ["op": "type", "selector": selector, "text": text, "id": id]
            case .key(let key, let id): ["op": "key", "key": key, "id": id]
            case .screenshot(let path, let id): ["op": "screenshot", "path": path, "id": id]
            }
        }
    }

    /// What the page did.
    struct Session {
        /// Milliseconds from navigation to the load event.
        var loadMilliseconds: Double
        /// Each step's result by id: its value, or its error.
        var results: [String: (ok: Bool, value: Any?, error: String?)]
        /// Console messages and log entries (level, text).
        var console: [(level: String, text: String)]
        /// Uncaught exceptions.
        var exceptions: [String]
        /// Content-Security-Policy violations the page reported (directive, blocked, sample).
        var cspViolations: [[String: Any]]

        /// The value of step `id`, recording an issue when the step failed.
        func value(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) -> Any? {
            guard let result = results[id] else {
                Issue.record("no step \(id)", sourceLocation: sourceLocation)
                return nil
            }
            if !result.ok { Issue.record("step \(id) failed: \(result.error ?? "?")", sourceLocation: sourceLocation) }
            return result.value
        }

        func strings(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
            value(id, sourceLocation: sourceLocation) as? [String] ?? []
        }

        func string(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
            value(id, sourceLocation: sourceLocation) as? String
        }

        /// A `waitFor` step's wait, in milliseconds.
        func waited(_ id: String, sourceLocation: SourceLocation = #_sourceLocation) -> Double {
            (value(id, sourceLocation: sourceLocation) as? [String: Any])?["milliseconds"] as? Double ?? -1
        }
    }

    /// Opens `page` in a fresh headless Chromium (1280×900), performs `steps`, and reports.
    static func run(page: URL, steps: [Step], timeout: Int = 300) throws -> Session {
        let plan: [String: Any] = [
            "url": page.absoluteString, "width": 1280, "height": 900, "timeout": timeout, "steps": steps.map(\.json),
        ]
        let planFile = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-export-plan-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: plan).write(to: planFile)
        defer { try? FileManager.default.removeItem(at: planFile) }
        let outcome = try Shell.run(["python3", driver, "run", planFile.path])
        guard outcome.status == 0 else { throw SessionFailure(reason: "exit \(outcome.status): \(outcome.stderr)") }
        guard let report = try JSONSerialization.jsonObject(with: outcome.stdoutData) as? [String: Any] else {
            throw SessionFailure(reason: "no report: \(outcome.stdout) \(outcome.stderr)")
        }
        var results: [String: (ok: Bool, value: Any?, error: String?)] = [:]
        for case let result as [String: Any] in report["results"] as? [Any] ?? [] {
            guard let id = result["id"] as? String else { continue }
            results[id] = (result["ok"] as? Bool ?? false, result["value"].flatMap { $0 is NSNull ? nil : $0 }, result["error"] as? String)
        }
        let console = (report["console"] as? [[String: Any]] ?? []).map {
            (level: $0["level"] as? String ?? "", text: $0["text"] as? String ?? "")
        }
        return Session(
            loadMilliseconds: report["loadMilliseconds"] as? Double ?? -1, results: results, console: console,
            exceptions: report["exceptions"] as? [String] ?? [], cspViolations: report["cspViolations"] as? [[String: Any]] ?? [])
    }

    /// The driver failed: Chromium died, or the session ran out of time.
    struct SessionFailure: Error, CustomStringConvertible {
        var reason: String
        var description: String { "browser session failed: \(reason)" }
    }

    /// `chromium --headless=new --screenshot`: the page as it first appears, 1280×900.
    static func screenshot(page: URL, to path: String) throws -> CommandResult {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-export-profile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        return try Shell.run([
            "chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--user-data-dir=\(profile.path)", "--window-size=1280,900", "--screenshot=\(path)", page.absoluteString,
        ])
    }

    /// The artifacts folder, made if missing.
    static func artifactsFolder() throws -> URL {
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        return artifacts
    }
}

extension Trait where Self == Requirement {
    /// Headless Chromium that starts (Tools/install-deps installs it); the reason is printed when
    /// the tests are skipped.
    static var requiresChromium: Self {
        .requires(requiredInCI: true) { ExportBrowser.unavailableReason }
    }
}

// MARK: - The page in a real browser

/// Shorthands the steps call in the page (installed by the first `eval` of each session).
private let pageHelpers = """
    window.__t = {
      cellText: (row) => row.querySelector('td.name .open, td.name .label-text').textContent,
      list: () => [...document.querySelectorAll('#files-body tr')].map(window.__t.cellText),
      row: (name) => [...document.querySelectorAll('#files-body tr')].find((row) => window.__t.cellText(row) === name),
      crumbs: () => [...document.querySelectorAll('#crumbs .crumb')].map((crumb) => crumb.textContent),
      tree: () => [...document.querySelectorAll('#tree .row .name')].map((name) => name.textContent),
      treeLabel: (name) => [...document.querySelectorAll('#tree .label')].find((label) => label.querySelector('.name').textContent === name),
      treeToggle: (name) => window.__t.treeLabel(name).parentElement.querySelector('.toggle'),
      crumb: (name) => [...document.querySelectorAll('#crumbs button.crumb')].find((crumb) => crumb.textContent === name),
      results: () => [...document.querySelectorAll('#results-list li.result')].map((item) =>
        [item.querySelector('.hit-name').textContent, item.querySelector('.hit-path').textContent]),
      searched: (query) => !document.getElementById('results').hidden && document.getElementById('results').dataset.query === query,
      clearSearch: () => { document.getElementById('search').value = ''; return true; },
      sortState: () => [...document.querySelectorAll('.files th')].map((th) => th.dataset.sort + ':' + th.getAttribute('aria-sort')),
    };
    true
    """

@Suite("Catalog exports: the HTML page in headless Chromium", .serialized, .requiresChromium)
struct CatalogExportBrowserTests {
    typealias Step = ExportBrowser.Step

    @Test("tree expands, breadcrumbs follow, headers sort, search finds across roots, hostile names are text and run nothing")
    func interactive() throws {
        // The first root on a labelled volume of its own when loop volumes can be made here, so the
        // page holds two volumes; otherwise both roots are in /tmp.
        if let reason = VolumeSupport.unavailableReason {
            print("catalog export page test: both roots in /tmp, one volume (\(reason))")
            try checkPage(treeParent: nil)
        } else {
            try LoopVolume.withVolume(.ext4, label: "Archive") { volume in
                let parent = volume.path("export")
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
                try checkPage(treeParent: parent)
            }
        }
    }

    private func checkPage(treeParent: String?) throws {
        let fixture = try ExportFixture.make(treeParent: treeParent)
        defer { fixture.remove() }
        let twoVolumes = treeParent != nil
        let pagePath = fixture.folder + "/catalog.html"
        try Data(CatalogExporter.export(fixture.snapshots, format: .html, options: .init(title: "Export test")))
            .write(to: URL(fileURLWithPath: pagePath))
        let artifacts = try ExportBrowser.artifactsFolder()
        let screenshot = artifacts.appendingPathComponent("catalog-export.png").path
        let hostileShot = artifacts.appendingPathComponent("catalog-export-hostile.png").path
        let root = fixture.root
        let steps: [Step] = [
            .waitFor("document.documentElement.dataset.ready === 'true'", id: "ready"),
            .eval(pageHelpers, id: "helpers"),
            .eval("document.title", id: "title"),
            .eval("__t.tree()", id: "tree"),
            .eval("__t.crumbs()", id: "crumbsRoot"),
            .eval("document.getElementById('volume-facts').textContent", id: "volume"),
            // The tree: open docs by its label, expand reports by its toggle, open 2024.
            .clickElement("__t.treeLabel('docs')", id: "openDocs"),
            .eval("__t.crumbs()", id: "crumbsDocs"),
            .eval("__t.list()", id: "listDocs"),
            .eval("__t.tree()", id: "treeDocs"),
            .clickElement("__t.treeToggle('reports')", id: "expandReports"),
            .eval("__t.tree()", id: "treeReports"),
            .eval("__t.treeLabel('reports').closest('li').getAttribute('aria-expanded')", id: "reportsExpanded"),
            .clickElement("__t.treeLabel('2024')", id: "open2024"),
            .eval("__t.crumbs()", id: "crumbs2024"),
            .eval("__t.list()", id: "list2024"),
            .clickElement("__t.crumb('docs')", id: "crumbBack"),
            .eval("__t.crumbs()", id: "crumbsBack"),
            // Sorting by the column headers.
            .click(selector: "th[data-sort=size] button", id: "sortSize"),
            .eval("__t.list()", id: "bySizeUp"),
            .eval("__t.sortState()", id: "sortStateSizeUp"),
            .click(selector: "th[data-sort=size] button", id: "sortSizeAgain"),
            .eval("__t.list()", id: "bySizeDown"),
            .eval("__t.sortState()", id: "sortStateSizeDown"),
            .click(selector: "th[data-sort=name] button", id: "sortName"),
            .eval("__t.list()", id: "byNameUp"),
            .click(selector: "th[data-sort=name] button", id: "sortNameAgain"),
            .eval("__t.list()", id: "byNameDown"),
            .click(selector: "th[data-sort=date] button", id: "sortDate"),
            .eval("__t.list()", id: "byDateUp"),
            .click(selector: "th[data-sort=name] button", id: "sortNameForShot"),
            .screenshot(path: screenshot, id: "screenshot"),
            // Search: a file, then going to it; a name with markup; a path; another root.
            .type(selector: "#search", text: "C-MEDIUM", id: "typeMedium"),
            .waitFor("__t.searched('c-medium')", id: "searchedMedium"),
            .eval("__t.results()", id: "resultsMedium"),
            .eval("document.getElementById('results-status').textContent", id: "statusMedium"),
            .clickElement("document.querySelector('#results-list li.result button')", id: "goMedium"),
            .eval("__t.crumbs()", id: "crumbsMedium"),
            .eval("__t.row('c-medium.dat').classList.contains('hit')", id: "highlighted"),
            .eval("__t.clearSearch()", id: "clear1"),
            .type(selector: "#search", text: "alert(1)", id: "typeAlert"),
            .waitFor("__t.searched('alert(1)')", id: "searchedAlert"),
            .eval("__t.results()", id: "resultsAlert"),
            .eval("__t.clearSearch()", id: "clear2"),
            .type(selector: "#search", text: "/script>.txt", id: "typePath"),
            .waitFor("__t.searched('/script>.txt')", id: "searchedPath"),
            .eval("__t.results()", id: "resultsPath"),
            .eval("__t.clearSearch()", id: "clear3"),
            .type(selector: "#search", text: "todo", id: "typeTodo"),
            .waitFor("__t.searched('todo')", id: "searchedTodo"),
            .eval("__t.results()", id: "resultsTodo"),
            .key("Escape", id: "escape"),
            .eval("document.getElementById('results').hidden", id: "resultsClosed"),
            // The second root: its volume in the header.
            .eval("document.getElementById('volume-name').textContent", id: "firstVolume"),
            .clickElement("__t.treeLabel(\(Self.javaScriptString(fixture.second)))", id: "openSecond"),
            .eval("__t.crumbs()", id: "crumbsSecond"),
            .eval("document.getElementById('volume-name').textContent", id: "secondVolume"),
            // The hostile folder.
            .clickElement("__t.treeLabel('hostile')", id: "openHostile"),
            .eval("__t.list()", id: "listHostile"),
            .eval("[...document.querySelectorAll('#files-body .target')].map((target) => target.textContent)", id: "targets"),
            .eval(
                """
                ({title: document.title, images: document.querySelectorAll('img').length, scripts: document.scripts.length,
                  handlers: document.querySelectorAll('[onerror], [onload], [onclick], [onmouseover]').length,
                  violations: window.__cspViolations.length})
                """, id: "safety"),
            .eval("__t.clearSearch()", id: "clear4"),
            .type(selector: "#search", text: "'", id: "typeQuote"),
            .waitFor("__t.searched(\"'\")", id: "searchedQuote"),
            .screenshot(path: hostileShot, id: "hostileScreenshot"),
            // Controls: the page's policy refuses markup and script even from the DevTools console.
            .eval(
                """
                (() => { try { document.getElementById('summary').innerHTML = '<img src=x onerror="document.title=1">'; return 'allowed'; }
                  catch (error) { return error.name; } })()
                """, id: "innerHTMLRefused"),
            .eval(
                """
                (() => { const script = document.createElement('script');
                  try { script.text = "document.title = 'injected'"; } catch (error) { return error.name; }
                  document.body.appendChild(script); return 'allowed'; })()
                """, id: "scriptRefused"),
            .eval("window.__cspViolations.map((violation) => violation.directive)", id: "violationsAfterControls"),
            .eval("document.title", id: "titleAtEnd"),
        ]
        let session = try ExportBrowser.run(page: URL(fileURLWithPath: pagePath), steps: steps)
        // The page opened cold by Chromium's own --screenshot, without DevTools.
        let coldShot = artifacts.appendingPathComponent("catalog-export-opened.png").path
        let cold = try ExportBrowser.screenshot(page: URL(fileURLWithPath: pagePath), to: coldShot)
        #expect(cold.status == 0, "\(cold.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: coldShot)).prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        print("catalog export screenshots: \(screenshot), \(hostileShot), \(coldShot)")

        #expect(session.exceptions.isEmpty, "\(session.exceptions)")
        // Chromium words a refused inline script or style "… violates the following Content Security
        // Policy directive 'script-src …'" (or 'style-src').
        #expect(!session.console.contains { $0.text.contains("directive 'script-src") || $0.text.contains("directive 'style-src") },
                "the page's own script and style match the policy's hashes: \(session.console)")
        _ = session.value("ready")
        #expect(session.string("title") == "Export test")
        let tree = session.strings("tree")
        #expect(tree.first == root && tree.last == fixture.second, "both roots at the top: \(tree)")
        #expect(Set(tree).isSuperset(of: ["docs", "hostile", "bad\\xFFdir", HostileName.scriptFolder]))
        #expect(!tree.contains("reports"), "only expanded folders are made")
        #expect(session.strings("crumbsRoot") == [root])
        let volume = session.string("volume") ?? ""
        #expect(volume.contains(fixture.snapshots[0].volume.fsType) && volume.contains("Scanned"), "\(volume)")

        #expect(session.strings("crumbsDocs") == [root, "docs"])
        #expect(session.strings("listDocs") == ["reports", "a-small.txt", "b-large.bin", "c-medium.dat"])
        #expect(session.strings("treeDocs").contains("reports") && !session.strings("treeDocs").contains("2024"))
        #expect(session.strings("treeReports").contains("2024"))
        #expect(session.string("reportsExpanded") == "true")
        #expect(session.strings("crumbs2024") == [root, "docs", "reports", "2024"])
        #expect(session.strings("list2024") == ["summary.csv"])
        #expect(session.strings("crumbsBack") == [root, "docs"])

        #expect(session.strings("bySizeUp") == ["reports", "a-small.txt", "c-medium.dat", "b-large.bin"])
        #expect(session.strings("sortStateSizeUp") == ["name:none", "size:ascending", "date:none"])
        #expect(session.strings("bySizeDown") == ["reports", "b-large.bin", "c-medium.dat", "a-small.txt"])
        #expect(session.strings("sortStateSizeDown") == ["name:none", "size:descending", "date:none"])
        #expect(session.strings("byNameUp") == ["reports", "a-small.txt", "b-large.bin", "c-medium.dat"])
        #expect(session.strings("byNameDown") == ["reports", "c-medium.dat", "b-large.bin", "a-small.txt"])
        #expect(session.strings("byDateUp") == ["reports", "b-large.bin", "a-small.txt", "c-medium.dat"])

        let medium = session.value("resultsMedium") as? [[String]]
        #expect(medium == [["c-medium.dat", root + "/docs/c-medium.dat"]], "case-insensitive, with the full path")
        #expect(session.string("statusMedium") == "1 match")
        #expect(session.strings("crumbsMedium") == [root, "docs"])
        #expect(session.value("highlighted") as? Bool == true)
        #expect(session.value("resultsAlert") as? [[String]] == [[HostileName.scriptFolder, root + "/" + HostileName.scriptFolder]])
        #expect(session.value("resultsPath") as? [[String]] == [[HostileName.scriptFile, root + "/<script>alert(1)</script>.txt"]])
        #expect(session.value("resultsTodo") as? [[String]] == [["todo.txt", fixture.second + "/notes/todo.txt"]], "every root is searched")
        #expect(session.value("resultsClosed") as? Bool == true)
        #expect(session.strings("crumbsSecond") == [fixture.second])
        if twoVolumes {
            #expect(session.string("firstVolume") == "Volume Archive")
            #expect(session.string("secondVolume") != "Volume Archive", "the header follows the folder's volume")
        }

        let hostile = Set(session.strings("listHostile"))
        for shown in [
            HostileName.image, HostileName.quotes, HostileName.comma, "line1\\nline2.txt", "caf\\xE9.txt",
            "bidi-\\u{202E}gpj.exe", "para\\u{2028}sep.txt", HostileName.backslash, HostileName.markdown, "tab\\there.txt",
        ] {
            #expect(hostile.contains(shown), "\(shown) is shown as text")
        }
        #expect(session.strings("targets") == ["\u{2192} " + HostileName.linkTarget])
        let safety = session.value("safety") as? [String: Any] ?? [:]
        #expect(safety["title"] as? String == "Export test", "no onerror from a name ran")
        #expect(safety["images"] as? Int == 0 && safety["handlers"] as? Int == 0)
        #expect(safety["scripts"] as? Int == 2, "the data block and the page's script")
        #expect(safety["violations"] as? Int == 0, "nothing the page did needed the policy to step in")

        #expect(session.string("innerHTMLRefused") == "TypeError", "Trusted Types refuse a string of markup")
        #expect(session.string("scriptRefused") == "TypeError", "and a script's text")
        #expect(session.strings("violationsAfterControls").contains("require-trusted-types-for"))
        #expect(session.string("titleAtEnd") == "Export test")
        #expect(FileManager.default.fileExists(atPath: screenshot) && FileManager.default.fileExists(atPath: hostileShot))
    }

    /// `text` as a JavaScript string literal.
    static func javaScriptString(_ text: String) -> String {
        let array = (try? JSONSerialization.data(withJSONObject: [text])).map { String(decoding: $0, as: UTF8.self) } ?? "[\"\"]"
        return String(array.dropFirst().dropLast())
    }

    @Test("100,000 entries: the page loads, the tree and list stay small, search answers and is capped; times printed")
    func hundredThousand() throws {
        let snapshot = SyntheticCatalog.big()
        let clock = ContinuousClock()
        var page: [UInt8] = []
        let exportTime = clock.measure {
            page = CatalogExporter.export([snapshot], format: .html, options: .init(title: "100,000 files"))
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-export-big-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pageURL = folder.appendingPathComponent("big.html")
        try Data(page).write(to: pageURL)
        let screenshot = try ExportBrowser.artifactsFolder().appendingPathComponent("catalog-export-100k.png").path
        let steps: [Step] = [
            .waitFor("document.documentElement.dataset.ready === 'true'", id: "ready", timeout: 120),
            .eval(pageHelpers, id: "helpers"),
            .eval("Number(document.documentElement.dataset.readyMilliseconds)", id: "scriptMilliseconds"),
            .eval("document.getElementById('stats').textContent", id: "stats"),
            .eval("document.querySelectorAll('#tree li').length", id: "treeItems"),
            .eval("document.querySelectorAll('#files-body tr').length", id: "rootRows"),
            .type(selector: "#search", text: "needle", id: "typeNeedle"),
            .waitFor("__t.searched('needle')", id: "searchedNeedle", timeout: 60),
            .eval("__t.results().length", id: "needles"),
            .eval("Number(document.getElementById('results').dataset.milliseconds)", id: "needleMilliseconds"),
            .eval("__t.clearSearch()", id: "clear"),
            .type(selector: "#search", text: "file-1", id: "typeMany"),
            .waitFor("__t.searched('file-1')", id: "searchedMany", timeout: 60),
            .eval("__t.results().length", id: "manyListed"),
            .eval("document.getElementById('results-status').textContent", id: "manyStatus"),
            .eval("document.querySelector('#results-list .more-note')?.textContent ?? ''", id: "manyNote"),
            .eval("Number(document.getElementById('results').dataset.milliseconds)", id: "manyMilliseconds"),
            .key("Escape", id: "escape"),
            .clickElement("__t.treeToggle('top-3')", id: "expandTop"),
            .clickElement("__t.treeLabel('sub-3-7')", id: "openSub"),
            .eval("document.querySelectorAll('#files-body tr').length", id: "subRows"),
            .click(selector: "th[data-sort=size] button", id: "sortSize"),
            .eval("[...document.querySelectorAll('#files-body td.size')].map((cell) => Number(cell.title.split(' ')[0].replace(/,/g, '')))", id: "sizes"),
            .screenshot(path: screenshot, id: "screenshot"),
        ]
        let session = try ExportBrowser.run(page: pageURL, steps: steps)
        let manyResults = session.value("manyListed") as? Int ?? -1
        let sizes = (session.value("sizes") as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.doubleValue }
        print(
            """
            catalog export, 100,000 files (\(snapshot.entries.count) entries): \
            HTML built in \(exportTime), \(page.count / 1024) KiB; \
            navigation to load event \(Int(session.loadMilliseconds)) ms, \
            page script to ready \(session.value("scriptMilliseconds") ?? "?") ms, \
            ready seen after \(Int(session.waited("ready"))) ms; \
            search "needle" \(session.value("needleMilliseconds") ?? "?") ms in the page (\(Int(session.waited("searchedNeedle"))) ms \
            after typing, 150 ms of it the typing pause); search "file-1" \(session.value("manyMilliseconds") ?? "?") ms; \
            screenshot \(screenshot)
            """)
        #expect(session.exceptions.isEmpty, "\(session.exceptions)")
        #expect((session.string("stats") ?? "").contains("100,000 files"))
        #expect(session.value("treeItems") as? Int == 11, "the root and its 10 folders; nothing deeper until expanded")
        #expect(session.value("rootRows") as? Int == 10)
        #expect(session.value("needles") as? Int == 10)
        #expect(manyResults == 200, "the list is capped")
        let status = session.string("manyStatus") ?? ""
        #expect(status.hasSuffix("matches") && status != "200 matches", "\(status)")
        #expect((session.string("manyNote") ?? "").contains("more not listed"))
        #expect(session.value("subRows") as? Int == 100)
        #expect(sizes.count == 100 && zip(sizes, sizes.dropFirst()).allSatisfy { $0 <= $1 }, "sorted by size")
    }
}
