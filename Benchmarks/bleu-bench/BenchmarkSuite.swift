import Foundation

/// How a suite should run.
struct BenchmarkOptions: Sendable {
    /// A short smoke run: fewer iterations, figures less stable.
    var quick: Bool
    /// How many calls the `calls` suite makes.
    var calls = 1000
    /// Which scenario a suite with several runs (`memory`: `central` or `peripheral`); all when `nil`.
    var scenario: String?
    /// The radio counts the `fleet` suite compares (`--radios`); its usual runs when `nil`.
    var radios: [Int]?
}

/// One benchmark suite. Add a suite in its own file and list an instance in ``BenchmarkRegistry``.
protocol BenchmarkSuite: Sendable {
    /// The name on the command line and the first component of every JSON key.
    var name: String { get }
    /// One line saying what it measures.
    var summary: String { get }
    /// Measures and records figures. Progress for long steps goes to standard error.
    func run(_ options: BenchmarkOptions, _ report: inout BenchmarkReport) async throws
}

/// The figures of one run, in the order they were recorded.
struct BenchmarkReport {
    struct Figure {
        /// The full JSON key, such as `wire.compact.mtu185.mbps`.
        var key: String
        var value: Double
        var unit: String
        /// What the figure is, for the table.
        var label: String
    }

    let suite: String
    private(set) var figures: [Figure] = []

    init(suite: String) {
        self.suite = suite
    }

    /// Records a figure under `suite.key`.
    mutating func record(_ key: String, _ value: Double, unit: String, _ label: String) {
        figures.append(Figure(key: "\(suite).\(key)", value: value, unit: unit, label: label))
    }

    /// A readable table: label, value, unit, key.
    func tableText() -> String {
        let labelWidth = max(6, figures.map(\.label.count).max() ?? 0)
        let values = figures.map { Self.format($0.value) }
        let valueWidth = max(5, values.map(\.count).max() ?? 0)
        var lines = ["\(suite)", String(repeating: "-", count: labelWidth + valueWidth + 30)]
        for (figure, value) in zip(figures, values) {
            let label = figure.label.padding(toLength: labelWidth, withPad: " ", startingAt: 0)
            let padded = String(repeating: " ", count: valueWidth - value.count) + value
            lines.append("\(label)  \(padded) \(figure.unit.padding(toLength: 8, withPad: " ", startingAt: 0)) \(figure.key)")
        }
        return lines.joined(separator: "\n")
    }

    /// One JSON object, flat, keys sorted: `{"wire.memcpy.mbps": 10123.4, ...}`.
    func jsonText() -> String {
        let object = Dictionary(figures.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
        return String(decoding: data, as: UTF8.self)
    }

    private static func format(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e12 { return String(Int64(value)) }
        if abs(value) >= 100 { return String(format: "%.1f", value) }
        return String(format: "%.3f", value)
    }
}

/// Times a closure with the monotonic clock.
func measure(_ body: () throws -> Void) rethrows -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return clock.now - start
}

/// Keeps a value alive so the optimizer cannot drop the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) * 1e-18
    }
}
