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

    /// A store in `url`; the file is created on the first save.
    public init(url: URL) {
        self.url = url
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
