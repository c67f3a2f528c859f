import BleuCore
import Foundation

/// The radio's scan: the one running (its collector, which merges scan responses and filters
/// duplicates, the stream it feeds, and the timer that reports advertisements whose scan
/// response is overdue), and the scan commands, legacy or extended.
///
/// Deadlines count in the radio's elapsed time, on its (injected) clock.
struct RadioScanner {
    /// Which scan, so a late timer or consumer does not touch a newer one.
    struct ID: Hashable, Sendable {
        fileprivate let rawValue: Int
    }

    private struct Scan {
        let id: ID
        var collector: ScanCollector
        let continuation: AsyncThrowingStream<Advertisement, any Error>.Continuation
        var expiryTask: Task<Void, Never>?
    }

    private let elapsed: ElapsedClock
    private var scan: Scan?
    private var lastID = 0

    init(clock: any Clock<Duration>) {
        elapsed = ElapsedClock(clock)
    }

    var isScanning: Bool { scan != nil }

    /// The running scan's identifier.
    var currentID: ID? { scan?.id }

    /// Starts a scan (after ``end(throwing:)`` of any running one) and returns its stream;
    /// `abandoned` is called with its identifier when the stream's consumer goes away.
    mutating func begin(_ options: ScanOptions, responseWait: Duration, capacity: Int,
                        abandoned: @escaping @Sendable (ID) -> Void) -> AsyncThrowingStream<Advertisement, any Error> {
        lastID += 1
        let id = ID(rawValue: lastID)
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Advertisement.self,
                                                                    bufferingPolicy: .bufferingNewest(1024))
        continuation.onTermination = { _ in abandoned(id) }
        scan = Scan(id: id, collector: ScanCollector(options: options, responseWait: responseWait, capacity: capacity),
                    continuation: continuation)
        return stream
    }

    /// Ends the running scan: its stream finishes (with `error`, when given).
    mutating func end(throwing error: (any Error)?) {
        guard let scan else { return }
        self.scan = nil
        scan.expiryTask?.cancel()
        scan.continuation.finish(throwing: error)
    }

    /// Takes an advertising report and reports what is ready, under the identifier `identify`
    /// gives each peripheral. Without a scan, reports are ignored.
    mutating func receive(_ report: ScanReport, identify: (ScanCollector.Found) -> UUID) {
        guard scan != nil else { return }
        let found = scan!.collector.receive(report, now: elapsed.now())
        publish(found, identify)
    }

    /// Reports what waited past its deadline for a scan response; `false` when scan `id` no
    /// longer runs.
    mutating func expire(_ id: ID, identify: (ScanCollector.Found) -> UUID) -> Bool {
        guard scan?.id == id else { return false }
        scan!.expiryTask = nil
        let found = scan!.collector.expire(now: elapsed.now())
        publish(found, identify)
        return true
    }

    private func publish(_ found: [ScanCollector.Found], _ identify: (ScanCollector.Found) -> UUID) {
        guard let scan else { return }
        for item in found {
            scan.continuation.yield(Advertisement(peripheral: identify(item), data: item.data, rssi: item.rssi,
                                                  isConnectable: item.isConnectable))
        }
    }

    /// The expiry timer to start now, if any: a held-back advertisement has a deadline and no
    /// timer runs. The caller starts it and hands it to ``expiryStarted(_:)``.
    func expiryDue() -> (id: ID, wait: Duration)? {
        guard let scan, scan.expiryTask == nil, let deadline = scan.collector.nextDeadline else { return nil }
        return (scan.id, max(.zero, deadline - elapsed.now()))
    }

    mutating func expiryStarted(_ task: Task<Void, Never>) {
        scan?.expiryTask = task
    }

    // MARK: Commands

    /// LE Set (Extended) Scan Enable; duplicates are filtered by the scan collector, not the
    /// controller, so allow-duplicates scans see every report.
    static func enable(_ on: Bool, extended: Bool) -> HCICommand {
        extended ? .leSetExtendedScanEnable(enable: on, filterDuplicates: 0, duration: nil, period: nil)
            : .leSetScanEnable(enable: on, filterDuplicates: false)
    }

    /// LE Set (Extended) Scan Parameters for an active scan on LE 1M.
    static func parameters(_ configuration: HCIRadioConfiguration, ownAddressType: AddressType, extended: Bool) -> HCICommand {
        extended
            ? .leSetExtendedScanParameters(ownAddressType: ownAddressType, filterPolicy: 0, phys: .le1M, [
                LEExtendedScanPHY(scanType: .active, interval: configuration.scanInterval, window: configuration.scanWindow),
            ])
            : .leSetScanParameters(LEScanParameters(scanType: .active, interval: configuration.scanInterval,
                                                    window: configuration.scanWindow, ownAddressType: ownAddressType))
    }
}
