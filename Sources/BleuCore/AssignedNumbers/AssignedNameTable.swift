/// The name tables generated from the Bluetooth assigned numbers (in `Generated/`, written by
/// `scripts/generate-assigned-numbers.py`): the one place Bleu keeps the SIG's names of UUIDs,
/// companies and appearances.
enum AssignedNames {
    /// The name of a 16-bit SIG UUID: a service, a characteristic, a descriptor or a declaration.
    /// One value the data lists under two kinds would take the first kind's name; the tests
    /// check that the data has none.
    static func uuidName(_ value: UInt16) -> String? {
        services.name(for: value) ?? characteristics.name(for: value) ?? descriptors.name(for: value)
            ?? supplement.name(for: value)
    }
}

/// A sorted table of 16-bit keys and their names, stored the way the compiler and the program
/// both find cheap: an integer array and one string literal of names, one a line.
///
/// Nothing is built until a table is first used; then one pass over the text finds where each
/// name starts. A lookup is a binary search and a copy of one name.
struct AssignedNameTable: Sendable {
    /// The keys, ascending.
    let keys: [UInt16]
    /// The names in the order of `keys`, each followed by a line feed except the last.
    private let text: StaticString
    /// Where each name starts in `text`'s UTF-8, and one past the end of the text.
    private let starts: [Int]

    /// A table of `keys` (ascending) and `names`, one a line, in the same order. A table whose
    /// counts differ is a bug in the generator; the tests check every table.
    init(keys: [UInt16], names: StaticString) {
        self.keys = keys
        self.text = names
        var starts = [0]
        starts.reserveCapacity(keys.count + 1)
        names.withUTF8Buffer { bytes in
            for (offset, byte) in bytes.enumerated() where byte == 0x0A {
                starts.append(offset + 1)
            }
            starts.append(bytes.count + 1)
        }
        precondition(starts.count == keys.count + 1, "\(keys.count) keys, \(starts.count - 1) names")
        self.starts = starts
    }

    /// The name of `key`, or `nil` when the table does not have it.
    func name(for key: UInt16) -> String? {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        guard low < keys.count, keys[low] == key else { return nil }
        return name(at: low)
    }

    /// The name at `index` (in `keys`' order).
    func name(at index: Int) -> String {
        text.withUTF8Buffer { bytes in
            String(decoding: UnsafeBufferPointer(rebasing: bytes[starts[index]..<starts[index + 1] - 1]), as: UTF8.self)
        }
    }

    /// Every key with its name, in key order.
    var entries: [(key: UInt16, name: String)] {
        keys.indices.map { (keys[$0], name(at: $0)) }
    }
}
