import BleuCore
import Foundation

/// A central that passes everything to another and records, independently of the engine, the
/// connection attempts made through it: how many, and how many started while another attempt
/// to the same peripheral was still under way. With an `rssiOffset` it stands for a radio with a
/// better (or worse) antenna: its scans hear every peripheral that many dB louder.
final class RecordingCentral: ForwardingCentralManager {
    let base: any CentralManager
    let rssiOffset: Int
    private let record = Locked((inFlight: [UUID: Int](), attempts: [UUID: Int](), overlapping: 0))

    init(_ base: any CentralManager, rssiOffset: Int = 0) {
        self.base = base
        self.rssiOffset = rssiOffset
    }

    /// Attempts started for a peripheral that already had one under way.
    var overlappingAttempts: Int { record.withLock { $0.overlapping } }
    /// Attempts started per peripheral.
    var attempts: [UUID: Int] { record.withLock { $0.attempts } }

    func scan(_ options: ScanOptions) async throws -> AsyncThrowingStream<Advertisement, any Error> {
        let heard = try await base.scan(options)
        guard rssiOffset != 0 else { return heard }
        let offset = rssiOffset
        return AsyncThrowingStream { continuation in
            let relay = Task {
                do {
                    for try await advertisement in heard {
                        var louder = advertisement
                        louder.rssi += offset
                        continuation.yield(louder)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in relay.cancel() }
        }
    }

    func connect(_ peripheral: UUID, timeout: Duration?) async throws {
        record.withLock { record in
            if record.inFlight[peripheral, default: 0] > 0 { record.overlapping += 1 }
            record.inFlight[peripheral, default: 0] += 1
            record.attempts[peripheral, default: 0] += 1
        }
        defer { record.withLock { $0.inFlight[peripheral, default: 1] -= 1 } }
        try await base.connect(peripheral, timeout: timeout)
    }
}
