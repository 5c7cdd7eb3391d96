// SPDX-License-Identifier: Apache-2.0
import Testing
import VolumeFixtures

/// The `Requirement` trait that every test needing root, loop devices, a program or a kernel
/// feature carries: an unmet requirement must be a skip that Swift Testing reports as "skipped",
/// never a pass, and in CI (`BOOKMARK_REQUIRE_VOLUMES=1`) a failure where CI must meet it.
@Suite("Requirement trait: an unmet requirement is a skip, never a pass")
struct RequirementTraitTests {
    /// The error a trait's preparation throws, or `nil`.
    static func preparationError(_ trait: some Trait) async -> (any Error)? {
        guard let test = Test.current else { return nil }
        do {
            try await trait.prepare(for: test)
            return nil
        } catch {
            return error
        }
    }

    @Test("met: the test runs, in CI or not")
    func met() async {
        let trait = Requirement(requiredInCI: true) { nil }
        #expect(trait.verdict(inCI: false) == .run)
        #expect(trait.verdict(inCI: true) == .run)
        #expect(await Self.preparationError(trait) == nil)
    }

    @Test("unmet: skipped with the reason; in CI skipped, or failed where CI must meet it")
    func verdicts() {
        #expect(Requirement { "no strace" }.verdict(inCI: false) == .skip("no strace"))
        #expect(Requirement { "no strace" }.verdict(inCI: true) == .skip("no strace"))
        #expect(Requirement(requiredInCI: true) { "no strace" }.verdict(inCI: false) == .skip("no strace"))
        let required = Requirement(requiredInCI: true) { "no strace" }
        guard case .fail(let reason) = required.verdict(inCI: true) else {
            Issue.record("a requirement CI must meet did not fail in CI")
            return
        }
        #expect(reason.hasPrefix("no strace"))
    }

    /// Always skipped: `swift test` prints `Test "…" skipped: "…"` for it and xUnit output has a
    /// `<skipped>` element, so every run shows that an unmet requirement is reported as a skip.
    /// Were it run instead, it would fail, never pass. (A trait's preparation cannot be called
    /// from inside a running test to check the skip directly: Swift Testing then cancels that
    /// test. That any other error from a preparation fails the test, as `.fail` needs, was
    /// checked by hand with a throwaway trait: "Test … recorded an issue: Caught error".)
    @Test("an unmet requirement is reported as skipped, not passed",
          .requires { "demonstration: this requirement is never met" })
    func reportedAsSkipped() {
        Issue.record("a test whose requirement is unmet ran")
    }
}
