import BleuCore
import Foundation

/// Scanning: the controller's commands and the scanner's timer.
extension HCIRadio {
    /// Starts an active scan (ending the one running) and returns what it finds.
    func startScan(_ options: ScanOptions) async throws -> AsyncThrowingStream<Advertisement, any Error> {
        try requirePoweredOn()
        if scanner.isScanning { await stopScan() }
        let extended = setup.usesExtendedCommands
        // Scan parameters cannot change while a scan runs: make sure none does (a controller that
        // keeps its state across Reset, like Bumble's, may still scan for a previous host).
        await pipeline.attempt(RadioScanner.enable(false, extended: extended), completes: true, "stopping a scan")
        _ = try await host.execute(RadioScanner.parameters(configuration, ownAddressType: setup.ownAddressType,
                                                           extended: extended))
        // The scan takes reports before the enable's Command Complete is handled here: a
        // controller may send one right after it, and the actor may run that event first.
        let pipeline = self.pipeline
        let stream = scanner.begin(options, responseWait: configuration.scanResponseWait, capacity: configuration.maxKnownPeers) {
            id in pipeline.post(.scanConsumerEnded(id))
        }
        do {
            _ = try await host.execute(RadioScanner.enable(true, extended: extended))
        } catch {
            scanner.end(throwing: error)
            throw error
        }
        return stream
    }

    /// Stops the running scan; its stream ends.
    func stopScan() async {
        guard scanner.isScanning else { return }
        scanner.end(throwing: nil)
        await pipeline.attempt(RadioScanner.enable(false, extended: setup.usesExtendedCommands), completes: true,
                               "stopping a scan")
    }

    func scanReport(_ report: ScanReport) {
        scanner.receive(report) { identifyPeer($0.address, type: $0.addressType, name: $0.data.localName) }
        scheduleScanExpiry()
    }

    /// Reports held-back advertisements once their scan response is overdue.
    private func scheduleScanExpiry() {
        guard let (id, wait) = scanner.expiryDue() else { return }
        scanner.expiryStarted(Task { [weak self, clock] in
            try? await clock.sleep(for: wait)
            await self?.expireScan(id)
        })
    }

    private func expireScan(_ id: RadioScanner.ID) {
        guard scanner.expire(id, identify: { identifyPeer($0.address, type: $0.addressType, name: $0.data.localName) })
        else { return }
        scheduleScanExpiry()
    }
}
