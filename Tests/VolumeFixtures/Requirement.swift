// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// A trait for tests that need something this machine may lack: root and loop devices, a
/// program, a kernel feature. Where it is missing, Swift Testing skips the test with the reason,
/// so the run reports it as skipped, never as passed. Under `BOOKMARK_REQUIRE_VOLUMES=1`
/// (Tools/test as root) a requirement that CI must meet fails the test instead.
///
/// Swift Testing's `.enabled(if:_:)` fixes its comment where the test is declared. This trait
/// finds the reason when the test is about to run (and only for tests that run: a probe mount
/// costs a second), then skips through that same condition trait, so the skip is reported as
/// `.enabled(if:_:)` reports one: "skipped" on the console and `<skipped>` in xUnit output.
/// (`Test.cancel(_:)` would report "cancelled", which xUnit output counts as passed, and in a
/// parameterized test as a passed test case.)
public struct Requirement: TestTrait, SuiteTrait {
    /// What the trait does for a test.
    public enum Verdict: Equatable, Sendable {
        /// The requirement is met: the test runs.
        case run
        /// Not met: the test is skipped with this reason.
        case skip(String)
        /// Not met although CI must meet it: the test fails with this reason.
        case fail(String)
    }

    /// Why the requirement is not met here, or `nil` when it is.
    let unmetReason: @Sendable () -> String?
    /// Whether an unmet requirement fails the test under `BOOKMARK_REQUIRE_VOLUMES=1`.
    let requiredInCI: Bool

    /// A requirement: `unmetReason` says why it is not met, or returns `nil` when it is.
    public init(requiredInCI: Bool = false, _ unmetReason: @escaping @Sendable () -> String?) {
        self.unmetReason = unmetReason
        self.requiredInCI = requiredInCI
    }

    /// What happens to a test here; `inCI` is whether `BOOKMARK_REQUIRE_VOLUMES=1`.
    public func verdict(inCI: Bool = VolumeSupport.isRequired) -> Verdict {
        guard let reason = unmetReason() else { return .run }
        return requiredInCI && inCI ? .fail(reason + " (required with BOOKMARK_REQUIRE_VOLUMES=1)") : .skip(reason)
    }

    /// Skips or fails the test before it runs when the requirement is not met.
    public func prepare(for test: Test) async throws {
        switch verdict() {
        case .run:
            return
        case .skip(let reason):
            // The condition trait throws Swift Testing's own skip, carrying the reason.
            try await ConditionTrait.disabled(Comment(rawValue: reason)).prepare(for: test)
        case .fail(let reason):
            // Any other error from a trait's preparation is recorded as an issue: the test fails.
            throw RequirementNotMet(reason: reason)
        }
    }
}

/// A requirement CI must meet was not met.
public struct RequirementNotMet: Error, CustomStringConvertible {
    /// Why.
    public var reason: String
    /// The reason.
    public var description: String { reason }
}

extension Trait where Self == Requirement {
    /// Loop-mounted real volumes: root, `/dev/loop-control`, the tools, and a probe mount that
    /// works. Under `BOOKMARK_REQUIRE_VOLUMES=1` the tests run regardless, without the probe, and
    /// fail at their first mount instead of being skipped.
    public static var requiresRealVolumes: Self {
        Requirement { VolumeSupport.isRequired ? nil : VolumeSupport.unavailableReason }
    }

    /// Reruns as uid 65534: root and `setpriv`.
    public static var requiresUnprivilegedUser: Self {
        Requirement(requiredInCI: true) { Unprivileged.unavailableReason }
    }

    /// The mkfs of each of `kinds` (Tools/install-deps installs them).
    public static func requiresFileSystems(_ kinds: FixtureFileSystem...) -> Self {
        Requirement(requiredInCI: true) {
            let missing = kinds.filter { !VolumeSupport.canMake($0) }.compactMap(\.mkfs)
            return missing.isEmpty ? nil : "\(missing.joined(separator: ", ")) is not installed (Tools/install-deps installs it)"
        }
    }

    /// `program` on PATH; `installer` is what installs it.
    public static func requiresProgram(_ program: String, installedBy installer: String, requiredInCI: Bool) -> Self {
        Requirement(requiredInCI: requiredInCI) {
            Shell.has(program) ? nil : "\(program) is not installed (\(installer) installs it)"
        }
    }

    /// Any requirement: `unmetReason` returns why it is not met here, or `nil` when it is.
    public static func requires(requiredInCI: Bool = false, _ unmetReason: @escaping @Sendable () -> String?) -> Self {
        Requirement(requiredInCI: requiredInCI, unmetReason)
    }
}
