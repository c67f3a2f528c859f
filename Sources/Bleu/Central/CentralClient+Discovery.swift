import BleuCore
import Foundation

extension CentralClient {
    private enum SearchEvent: Sendable {
        case advertisement(Advertisement)
        case linked(UUID, [UUID])
        case failed(UUID, any Error)
        case scanEnded((any Error)?)
        case deadline
        case quiet(Int)
    }

    /// Scans for peripherals advertising `service` (or the generic host service), connects to
    /// each match concurrently and returns the ids of the actors hosted under `service`, in the
    /// order they were found. Stops at `timeout`, when `until` holds for the ids found so far,
    /// or — with ``BLEActorSystem/Configuration/discoveryQuietPeriod`` — once no connection is
    /// in progress and nothing new was found for that long.
    func search(service: BluetoothUUID, timeout: Duration, until: @escaping @Sendable ([UUID]) -> Bool) async throws -> [UUID] {
        let (events, sink) = AsyncStream.makeStream(of: SearchEvent.self)
        let clock = configuration.clock
        let scan = try await manager.scan(ScanOptions(services: [service, ActorServiceLayout.hostService]))
        var tasks: [Task<Void, Never>] = []
        defer {
            for task in tasks { task.cancel() }
            sink.finish()
        }
        tasks.append(Task {
            do {
                for try await advertisement in scan { sink.yield(.advertisement(advertisement)) }
                sink.yield(.scanEnded(nil))
            } catch {
                sink.yield(.scanEnded(error))
            }
        })
        tasks.append(Task {
            if (try? await clock.sleep(for: timeout)) != nil { sink.yield(.deadline) }
        })

        var found: [UUID] = []
        var seen: Set<UUID> = []
        var connecting = 0
        var quietGeneration = 0
        var lastError: (any Error)?
        func armQuietTimer() {
            guard let quiet = configuration.discoveryQuietPeriod, connecting == 0, !found.isEmpty else { return }
            quietGeneration += 1
            let generation = quietGeneration
            tasks.append(Task {
                if (try? await clock.sleep(for: quiet)) != nil { sink.yield(.quiet(generation)) }
            })
        }
        func setUp(_ peripheral: UUID) {
            connecting += 1
            quietGeneration += 1
            tasks.append(Task {
                do {
                    let link = try await self.linkRetrying(peripheral)
                    sink.yield(.linked(peripheral, link.actors(hostedUnder: service)))
                } catch {
                    sink.yield(.failed(peripheral, error))
                }
            })
        }
        loop: for await event in events {
            switch event {
            case .advertisement(let advertisement):
                guard advertisement.isConnectable, seen.insert(advertisement.peripheral).inserted else { continue }
                setUp(advertisement.peripheral)
            case .linked(_, let actors):
                connecting -= 1
                found += actors.filter { !found.contains($0) }
                if until(found) { break loop }
                armQuietTimer()
            case .failed(let peripheral, let error):
                connecting -= 1
                lastError = error
                configuration.logger.info("discovery: could not set up \(peripheral): \(error)")
                // A scan reports a peripheral once: one that was there but lost its link during
                // every set-up attempt is tried again while the search has time left.
                if Self.isLinkFailure(error) {
                    setUp(peripheral)
                } else {
                    armQuietTimer()
                }
            case .scanEnded(let error):
                if let error { throw error }
            case .deadline:
                break loop
            case .quiet(let generation):
                if generation == quietGeneration, connecting == 0 { break loop }
            }
        }
        await manager.stopScan()
        if found.isEmpty, let lastError { configuration.logger.debug("discovery found nothing; last error: \(lastError)") }
        return found
    }

    /// Whether `error` says the link failed (connecting, or lost on the way), rather than
    /// something trying again cannot change.
    static func isLinkFailure(_ error: any Error) -> Bool {
        switch error as? BleuError {
        case .disconnected?, .connectionFailed?, .connectionTimeout?, .timeout?: true
        default: false
        }
    }

    /// ``link(to:)``, trying again when connecting or setting up the link fails (a busy or
    /// unreliable radio fails some attempts, or loses the link during setup), up to
    /// ``BLEActorSystem/Configuration/connectionAttempts`` times.
    func linkRetrying(_ peripheral: UUID) async throws -> ConnectedPeripheral {
        var attempt = 1
        while true {
            do {
                return try await link(to: peripheral)
            } catch let error as BleuError where error != .cancelled && attempt < configuration.connectionAttempts && !Task.isCancelled {
                attempt += 1
                configuration.logger.debug("setting up \(peripheral) failed (\(error)); attempt \(attempt)")
            }
        }
    }
}
