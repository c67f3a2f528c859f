import BleuCore
import Foundation

extension RadioOwner {
    /// Waits until a scan hears the device the fleet knows as `id` (see ``identify``), for at
    /// most the scan timeout: one scan for the profile's service serves every device waiting; it
    /// stops when none is left.
    /// - Throws: ``BleuCore/BleuError/peripheralNotFound(_:)`` when the scan did not hear it.
    func scan(for id: UUID) async throws {
        if seenInScan.contains(id) { return }
        nextScanTicket &+= 1
        let ticket = nextScanTicket
        let clock = clock
        let deadline = clock.now() + scanTimeout
        let timer = Task { [weak self] in
            guard (try? await clock.sleep(until: deadline)) != nil else { return }
            await self?.endWait(for: id, ticket: ticket, with: BleuError.peripheralNotFound(id))
        }
        defer { timer.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: BleuError.cancelled)
                    return
                }
                scanWaiters[id, default: []].append((ticket, continuation))
                startScanning()
            }
        } onCancel: {
            Task { await self.endWait(for: id, ticket: ticket, with: BleuError.cancelled) }
        }
    }

    /// A waiter gives up (its timeout, or its task was cancelled); the scan stops with the last.
    private func endWait(for id: UUID, ticket: UInt64, with error: any Error) {
        guard var waiting = scanWaiters[id], let index = waiting.firstIndex(where: { $0.ticket == ticket }) else { return }
        let waiter = waiting.remove(at: index)
        scanWaiters[id] = waiting.isEmpty ? nil : waiting
        waiter.continuation.resume(throwing: error)
        if scanWaiters.isEmpty { scanTask?.cancel() }
    }

    private func startScanning() {
        guard !scanning else { return }
        scanning = true
        scanGeneration &+= 1
        let generation = scanGeneration
        let central = central
        let options = ScanOptions(services: [scanService])
        scanTask = Task { [weak self] in
            var failure: (any Error)?
            do {
                for try await advertisement in try await central.scan(options) {
                    guard let self, await self.heard(advertisement, generation: generation) else { break }
                }
            } catch {
                failure = error
            }
            await self?.scanEnded(generation: generation, failure: failure)
        }
    }

    /// The scan heard a peripheral; returns whether to go on scanning (someone still waits).
    private func heard(_ advertisement: Advertisement, generation: UInt64) -> Bool {
        guard scanning, generation == scanGeneration else { return false }
        guard let id = identify(advertisement) else { return true }
        // Bounded: a crowded place.
        if seenInScan.count >= 4096 { seenInScan.removeAll() }
        if sightings.count >= 4096 { sightings.removeAll() }
        sightings[id] = Sighting(peripheral: advertisement.peripheral, rssi: advertisement.rssi, at: clock.now())
        seenInScan.insert(id)
        for waiter in scanWaiters.removeValue(forKey: id) ?? [] { waiter.continuation.resume() }
        return !scanWaiters.isEmpty
    }

    /// The scan ended (nobody waits any more, or the radio ended it): whoever still waits fails.
    private func scanEnded(generation: UInt64, failure: (any Error)?) async {
        guard scanning, generation == scanGeneration else { return }
        scanning = false
        scanTask = nil
        seenInScan.removeAll()
        let waiting = scanWaiters
        scanWaiters = [:]
        for (id, waiters) in waiting {
            for waiter in waiters { waiter.continuation.resume(throwing: failure ?? BleuError.peripheralNotFound(id)) }
        }
        await central.stopScan()
    }
}
