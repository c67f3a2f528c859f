import BleuCore
import Foundation

/// A running scan: its options, the collector merging reports, and the stream it feeds.
struct RadioScan {
    let id: Int
    var collector: ScanCollector
    let continuation: AsyncThrowingStream<Advertisement, any Error>.Continuation
    var expiryTask: Task<Void, Never>?
}

extension HCIRadio {
    /// Starts an active scan (ending the one running) and returns what it finds.
    func startScan(_ options: ScanOptions) async throws -> AsyncThrowingStream<Advertisement, any Error> {
        try requirePoweredOn()
        if scan != nil { await stopScan() }
        // Scan parameters cannot change while a scan runs: make sure none does (a controller that
        // keeps its state across Reset, like Bumble's, may still scan for a previous host).
        await attempt(scanEnable(false), completes: true, "stopping a scan")
        if usesExtendedCommands {
            _ = try await host.execute(.leSetExtendedScanParameters(
                ownAddressType: ownAddressType, filterPolicy: 0, phys: .le1M,
                [LEExtendedScanPHY(scanType: .active, interval: configuration.scanInterval, window: configuration.scanWindow)]))
        } else {
            _ = try await host.execute(.leSetScanParameters(LEScanParameters(
                scanType: .active, interval: configuration.scanInterval, window: configuration.scanWindow,
                ownAddressType: ownAddressType)))
        }
        _ = try await host.execute(scanEnable(true))
        nextScanID += 1
        let id = nextScanID
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Advertisement.self,
                                                                    bufferingPolicy: .bufferingNewest(1024))
        continuation.onTermination = { [weak self] _ in
            Task { await self?.scanConsumerEnded(id) }
        }
        scan = RadioScan(id: id, collector: ScanCollector(options: options, responseWait: configuration.scanResponseWait,
                                                             capacity: configuration.maxKnownPeers),
                           continuation: continuation)
        return stream
    }

    /// Stops the running scan; its stream ends.
    func stopScan() async {
        guard scan != nil else { return }
        endScan(throwing: nil)
        await attempt(scanEnable(false), completes: true, "stopping a scan")
    }

    /// LE Set (Extended) Scan Enable; duplicates are filtered by the scan collector, not the
    /// controller, so allow-duplicates scans see every report.
    private func scanEnable(_ on: Bool) -> HCICommand {
        usesExtendedCommands ? .leSetExtendedScanEnable(enable: on, filterDuplicates: 0, duration: nil, period: nil)
            : .leSetScanEnable(enable: on, filterDuplicates: false)
    }

    private func scanConsumerEnded(_ id: Int) async {
        guard scan?.id == id else { return }
        await stopScan()
    }

    func endScan(throwing error: (any Error)?) {
        guard let session = scan else { return }
        scan = nil
        session.expiryTask?.cancel()
        session.continuation.finish(throwing: error)
    }

    func scanReport(_ report: ScanReport) {
        guard var session = scan else { return }
        let found = session.collector.receive(report, now: elapsed.now())
        scan = session
        publish(found)
        scheduleScanExpiry()
    }

    private func publish(_ found: [ScanCollector.Found]) {
        guard let session = scan else { return }
        for item in found {
            let id = identifyPeer(item.address, type: item.addressType, name: item.data.localName)
            session.continuation.yield(Advertisement(peripheral: id, data: item.data, rssi: item.rssi,
                                                     isConnectable: item.isConnectable))
        }
    }

    /// Reports held-back advertisements once their scan response is overdue.
    private func scheduleScanExpiry() {
        guard let session = scan, session.expiryTask == nil, let deadline = session.collector.nextDeadline else { return }
        let id = session.id
        let wait = deadline - elapsed.now()
        scan?.expiryTask = Task { [weak self, clock] in
            try? await clock.sleep(for: max(.zero, wait))
            await self?.expireScan(id)
        }
    }

    private func expireScan(_ id: Int) {
        guard var session = scan, session.id == id else { return }
        session.expiryTask = nil
        let found = session.collector.expire(now: elapsed.now())
        scan = session
        publish(found)
        scheduleScanExpiry()
    }
}
