import BleuCore

/// A first-in, first-out queue with O(1) removal from the front (amortised): an array and the
/// index of its head, compacted once the consumed part outgrows the rest. For the host's ACL
/// queue, which is drained one packet at a time.
struct FIFOQueue<Element> {
    private var storage: [Element] = []
    private var head = 0

    var count: Int { storage.count - head }
    var isEmpty: Bool { head == storage.count }

    mutating func append(contentsOf elements: some Sequence<Element>) {
        storage.append(contentsOf: elements)
    }

    mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        if head >= 64, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        storage = storage[head...].filter { !shouldRemove($0) }
        head = 0
    }

    mutating func removeAll() {
        storage = []
        head = 0
    }
}
