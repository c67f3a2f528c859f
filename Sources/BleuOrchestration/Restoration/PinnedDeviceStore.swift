import Foundation

/// Where the orchestrator keeps its pinned device identifiers across restarts.
public protocol PinnedDeviceStore: Sendable {
    /// The pinned identifiers saved last (empty when nothing was saved yet).
    func load() throws -> Set<UUID>
    /// Replaces what is saved.
    func save(_ pinned: Set<UUID>) throws
}

/// Pinned identifiers in a JSON file: `{"pinned": ["…", …]}`, written atomically.
public struct JSONFilePinnedDeviceStore: PinnedDeviceStore {
    private struct Contents: Codable {
        var pinned: [UUID]
    }

    /// The file.
    public let url: URL

    /// A store in `url`; the file (and its directory) is created on the first save.
    public init(url: URL) {
        self.url = url
    }

    /// The usual place for an app's pinned devices: `pinned-devices.json` in a folder `name`
    /// of the user's Application Support directory (on Linux `$XDG_DATA_HOME`, by default
    /// `~/.local/share`). Give each app (or each fleet of an app) its own `name`.
    /// - Throws: when the system has no Application Support directory for the user.
    public static func applicationSupport(named name: String) throws -> JSONFilePinnedDeviceStore {
        let base = try FileManager.default.url(for: .applicationSupportDirectory, in: .userDomainMask,
                                               appropriateFor: nil, create: false)
        return JSONFilePinnedDeviceStore(url: base.appendingPathComponent(name, isDirectory: true)
            .appendingPathComponent("pinned-devices.json"))
    }

    public func load() throws -> Set<UUID> {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        let data = try Data(contentsOf: url)
        return Set(try JSONDecoder().decode(Contents.self, from: data).pinned)
    }

    public func save(_ pinned: Set<UUID>) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data = try encoder.encode(Contents(pinned: pinned.sorted { $0.uuidString < $1.uuidString }))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
    }
}

/// Pinned identifiers in memory, for tests and apps that keep them elsewhere.
public final class InMemoryPinnedDeviceStore: PinnedDeviceStore {
    private let pinned: Locked<Set<UUID>>

    public init(_ pinned: Set<UUID> = []) {
        self.pinned = Locked(pinned)
    }

    public func load() throws -> Set<UUID> { pinned.withLock { $0 } }

    public func save(_ pinned: Set<UUID>) throws { self.pinned.withLock { $0 = pinned } }
}

import BleuCore
