import BleuCore
import Foundation

/// Where a device keeps its bonds: one per peer, found by the peer's address.
///
/// ``InMemoryBondStore`` forgets them with the process; ``FileBondStore`` keeps them in a file.
public protocol BondStore: Sendable {
    /// The bond with `peer`, if any.
    func bond(with peer: PairingAddress) throws(BondStoreError) -> Bond?
    /// Every bond, in address order.
    func bonds() throws(BondStoreError) -> [Bond]
    /// Keeps `bond`, replacing one with the same peer.
    func save(_ bond: Bond) throws(BondStoreError)
    /// Forgets the bond with `peer`; whether there was one.
    @discardableResult
    func forget(_ peer: PairingAddress) throws(BondStoreError) -> Bool
}

/// Why a bond store could not read or write its bonds.
public enum BondStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file exists but does not hold bonds this version reads; nothing was changed.
    case unreadable(path: String, reason: String)
    /// The file could not be written; the bonds on disk are as before.
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "the bond file \(path) cannot be read: \(reason)"
        case let .unwritable(path, reason): "the bond file \(path) cannot be written: \(reason)"
        }
    }
}

/// Bonds kept in memory, for tests and for devices that must not remember peers.
public final class InMemoryBondStore: BondStore {
    private let table = Locked([PairingAddress: Bond]())

    public init(_ bonds: [Bond] = []) {
        table.withLock { table in for bond in bonds { table[bond.peer] = bond } }
    }

    public func bond(with peer: PairingAddress) -> Bond? { table.withLock { $0[peer] } }
    public func bonds() -> [Bond] { table.withLock { $0.values.sorted { $0.peer.address < $1.peer.address } } }
    public func save(_ bond: Bond) { table.withLock { $0[bond.peer] = bond } }
    @discardableResult
    public func forget(_ peer: PairingAddress) -> Bool { table.withLock { $0.removeValue(forKey: peer) != nil } }
}

/// Bonds kept in one JSON file, readable and writable by its owner only (mode 0600). Every
/// change rewrites the file atomically: a new file is written beside it and renamed over it, so
/// a crash leaves the old bonds or the new ones, never half of either.
///
/// A file that exists but cannot be read fails ``init(path:)`` rather than being replaced:
/// bonds are not thrown away silently.
public final class FileBondStore: BondStore {
    /// The file's path.
    public let path: String
    private let table: Locked<[PairingAddress: Bond]>

    /// Opens the store at `path`, reading the bonds already there (none when the file does not
    /// exist yet; it is created on the first save).
    public init(path: String) throws(BondStoreError) {
        self.path = path
        var bonds: [PairingAddress: Bond] = [:]
        if FileManager.default.fileExists(atPath: path) {
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                let file = try JSONDecoder().decode(File.self, from: data)
                guard file.version == File.currentVersion else {
                    throw BondStoreError.unreadable(path: path, reason: "version \(file.version); this build reads \(File.currentVersion)")
                }
                for bond in file.bonds { bonds[bond.peer] = bond }
            } catch let error as BondStoreError {
                throw error
            } catch {
                throw .unreadable(path: path, reason: "\(error)")
            }
        }
        table = Locked(bonds)
    }

    public func bond(with peer: PairingAddress) -> Bond? { table.withLock { $0[peer] } }
    public func bonds() -> [Bond] { table.withLock { Self.sorted($0) } }

    public func save(_ bond: Bond) throws(BondStoreError) {
        try change { $0[bond.peer] = bond }
    }

    @discardableResult
    public func forget(_ peer: PairingAddress) throws(BondStoreError) -> Bool {
        var found = false
        try change { found = $0.removeValue(forKey: peer) != nil }
        return found
    }

    /// Applies `update`, writes the result, and keeps it only once it is on disk.
    private func change(_ update: (inout [PairingAddress: Bond]) -> Void) throws(BondStoreError) {
        try table.withLock { (table: inout [PairingAddress: Bond]) throws(BondStoreError) in
            var next = table
            update(&next)
            try write(Self.sorted(next))
            table = next
        }
    }

    private func write(_ bonds: [Bond]) throws(BondStoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(File(version: File.currentVersion, bonds: bonds))
        } catch {
            throw .unwritable(path: path, reason: "\(error)")
        }
        try OwnerOnlyFile.replace(path, with: data)
    }

    private static func sorted(_ table: [PairingAddress: Bond]) -> [Bond] {
        table.values.sorted { $0.peer.address < $1.peer.address }
    }

    /// The file's layout.
    private struct File: Codable {
        static let currentVersion = 1
        var version: Int
        var bonds: [Bond]
    }
}

/// A file only its owner reads and writes (mode 0600), replaced atomically: what keeps keys on
/// disk (the bond file, the local identity).
enum OwnerOnlyFile {
    /// Replaces the file at `path` with `data`: written beside it with mode 0600 from the start
    /// (never readable by others, even for a moment), flushed, then renamed over it — a crash
    /// leaves the old contents or the new ones, never half of either.
    static func replace(_ path: String, with data: Data) throws(BondStoreError) {
        let temporary = path + ".new"
        _ = unlink(temporary)   // a leftover of a crash, if any
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .unwritable(path: path, reason: "creating \(temporary) failed (errno \(errno))") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            _ = unlink(temporary)
            throw .unwritable(path: path, reason: "writing \(temporary) failed: \(error)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = "renaming \(temporary) failed (errno \(errno))"
            _ = unlink(temporary)
            throw .unwritable(path: path, reason: reason)
        }
    }
}
