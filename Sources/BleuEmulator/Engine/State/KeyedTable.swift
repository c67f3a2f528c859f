/// One of the engine's tables: its entries by key, and the allocation of new keys. A key is
/// never reused, so a stale key finds nothing rather than another entry.
struct KeyedTable<Kind: TableKeyKind, Value>: Sequence {
    typealias Key = TableKey<Kind>

    private var entries: [Key: Value] = [:]
    /// The raw value the next allocated key gets.
    private(set) var nextRawValue = 1

    /// An empty table whose keys start after `previous`'s (a bus started afresh keeps counting,
    /// so a manager cut off by the reset never names a new entry).
    init(continuing previous: KeyedTable? = nil) {
        nextRawValue = previous?.nextRawValue ?? 1
    }

    /// A key no entry has had.
    mutating func allocate() -> Key {
        defer { nextRawValue += 1 }
        return Key(rawValue: nextRawValue)
    }

    subscript(key: Key) -> Value? {
        get { entries[key] }
        _modify { yield &entries[key] }
    }

    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        entries.removeValue(forKey: key)
    }

    var keys: Dictionary<Key, Value>.Keys { entries.keys }
    var values: Dictionary<Key, Value>.Values { entries.values }
    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// The keys in allocation order: the order the engine visits entries in, so a run replays.
    var sortedKeys: [Key] { entries.keys.sorted() }

    func makeIterator() -> Dictionary<Key, Value>.Iterator { entries.makeIterator() }
}
