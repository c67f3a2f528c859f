/// The coding path of a value on the decoder's single-pass path, as it is handed down: one key
/// on its parent's path. Nesting costs one small allocation and no array; the path becomes the
/// `[any CodingKey]` that `Codable` speaks only when asked for (``keys``), which is when an
/// error is thrown or `codingPath` is read.
struct DecodingPath {
    private final class Link {
        let parent: Link?
        let key: any CodingKey
        let count: Int

        init(parent: Link?, key: any CodingKey) {
            self.parent = parent
            self.key = key
            self.count = (parent?.count ?? 0) + 1
        }
    }

    private let last: Link?

    private init(last: Link?) { self.last = last }

    /// The empty path, of the top-level value.
    static var root: DecodingPath { DecodingPath(last: nil) }

    /// This path, then `key`.
    func appending(_ key: some CodingKey) -> DecodingPath {
        DecodingPath(last: Link(parent: last, key: key))
    }

    /// The keys, outermost first.
    var keys: [any CodingKey] {
        guard let last else { return [] }
        var keys = [any CodingKey]()
        keys.reserveCapacity(last.count)
        var link: Link? = last
        while let current = link {
            keys.append(current.key)
            link = current.parent
        }
        keys.reverse()
        return keys
    }
}
