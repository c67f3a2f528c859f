@testable import Bleu
import BleuCore
import Foundation
import Logging

/// Log records kept in memory, so a test can check that the peripheral logged a refusal.
final class CapturedLogs: Sendable {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata = [:]
        var time: ContinuousClock.Instant = .now
    }

    private let records = Locked([Record]())
    private let start = ContinuousClock.now

    /// A logger writing here (and nowhere else), at every level.
    var logger: Logger {
        var logger = Logger(label: "test.bleu") { _ in CapturingLogHandler(logs: self) }
        logger.logLevel = .trace
        return logger
    }

    var all: [Record] { records.withLock { $0 } }

    func append(_ record: Record) { records.withLock { $0.append(record) } }

    /// Every record, one a line, with its time since these logs were made and its metadata:
    /// for a failing test to show what the system did.
    var transcript: String {
        all.map { record in
            let metadata = record.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return "\(start.duration(to: record.time)) [\(record.level)] \(record.message) \(metadata)"
        }.joined(separator: "\n")
    }

    /// Whether a record at `level` or above contains every one of `fragments`.
    func contains(_ fragments: String..., atLeast level: Logger.Level = .warning) -> Bool {
        all.contains { record in record.level >= level && fragments.allSatisfy { record.message.contains($0) } }
    }
}

struct CapturingLogHandler: LogHandler {
    let logs: CapturedLogs
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        logs.append(.init(level: event.level, message: "\(event.message)", metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }
}

extension BLEActorSystem.Configuration {
    /// This configuration, logging to `logs`.
    func logging(to logs: CapturedLogs) -> Self {
        var configuration = self
        configuration.logger = logs.logger
        return configuration
    }
}
