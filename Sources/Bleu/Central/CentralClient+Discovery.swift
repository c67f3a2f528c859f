import BleuCore
import BleuOrchestration
import Foundation

extension CentralClient {
    private enum SearchEvent: Sendable {
        case advertisement(Advertisement)
        case linked(UUID, [UUID])
        case stalled(UUID)
        case refused(UUID, any Error)
        case scanEnded((any Error)?)
        case deadline
        case quiet(Int)
    }

    /// Scans for peripherals that may host actors under `service` — or, when `keeping` names
    /// actors, those actors (by the id hashes in their host marker) — has the engine connect
    /// to each match and set it up, and returns the ids of the actors hosted under `service`,
    /// in the order they were found. Stops at `timeout`, when `until` holds
    /// for the ids found so far, or — with ``BLEActorSystem/Configuration/discoveryQuietPeriod``
    /// — once every peripheral heard is set up (or its first attempt failed) and nothing new
    /// was found for that long.
    ///
    /// Peripherals hosting an actor found (or one of `keeping`) stay held; the engine forgets
    /// the others, so a crowded room does not leave links or state behind. Also returns the
    /// last security failure a peripheral's set-up met (pairing refused, insufficient
    /// authentication), which may be why an actor was not found.
    func search(service: BluetoothUUID, timeout: Duration, keeping: Set<UUID> = [],
                until: @escaping @Sendable ([UUID]) -> Bool) async throws -> (found: [UUID], refusal: (any Error)?) {
        await start()
        let (events, sink) = AsyncStream.makeStream(of: SearchEvent.self)
        let deadline = clock.now() + timeout
        let clock = clock
        // Every advertiser is heard and chosen here: a host marker's UUID varies with the
        // actors it lists, so a scan filter cannot name it.
        let scan = try await manager.scan(ScanOptions(services: nil))
        var tasks: [Task<Void, Never>] = []
        var probed: Set<UUID> = []
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
            if (try? await clock.sleep(until: deadline)) != nil { sink.yield(.deadline) }
        })
        let fleetEvents = fleet.events()
        tasks.append(Task {
            for await event in fleetEvents {
                guard case .stateChanged(let device, _, let to, _) = event else { continue }
                switch to {
                case .backingOff: sink.yield(.stalled(device))
                case .suspended(let reason) where !reason.isGate: sink.yield(.stalled(device))
                default: break
                }
            }
        })

        var found: [UUID] = []
        var refusal: (any Error)?
        var pending: Set<UUID> = []
        var quietGeneration = 0
        func armQuietTimer() {
            // Something turned up — actors, or a peripheral that refused this central — and
            // nothing is left to wait for.
            guard let quiet = configuration.discoveryQuietPeriod, pending.isEmpty, !found.isEmpty || refusal != nil else { return }
            quietGeneration += 1
            let generation = quietGeneration
            tasks.append(Task {
                if (try? await clock.sleep(for: quiet)) != nil { sink.yield(.quiet(generation)) }
            })
        }
        loop: for await event in events {
            switch event {
            case .advertisement(let advertisement):
                guard Self.mayHost(advertisement.data, service: service, actors: keeping) else { continue }
                heard(advertisement)
                guard advertisement.isConnectable, probed.insert(advertisement.peripheral).inserted else { continue }
                let peripheral = advertisement.peripheral
                pending.insert(peripheral)
                quietGeneration += 1
                await probe(peripheral)
                tasks.append(Task {
                    do {
                        let link = try await self.waitForLink(peripheral, until: deadline, timeout: { BleuError.cancelled })
                        sink.yield(.linked(peripheral, link.actors(hostedUnder: service)))
                    } catch where Self.isSecurityFailure(error) {
                        sink.yield(.refused(peripheral, error))
                    } catch {
                        // The search's deadline or end: nothing to report.
                    }
                })
            case .linked(let peripheral, let actors):
                pending.remove(peripheral)
                found += actors.filter { !found.contains($0) }
                if until(found) { break loop }
                armQuietTimer()
            case .refused(let peripheral, let error):
                refusal = error
                pending.remove(peripheral)
                configuration.logger.info("discovery: \(peripheral) requires security this central does not have: \(error)")
                armQuietTimer()
            case .stalled(let peripheral):
                // Its first attempt failed: the engine goes on trying while the search lasts,
                // but the search no longer waits for it before going quiet.
                guard pending.remove(peripheral) != nil else { continue }
                configuration.logger.info("discovery: setting up \(peripheral) failed; retrying while the search lasts")
                armQuietTimer()
            case .scanEnded(let error):
                if let error {
                    await manager.stopScan()
                    await settle(probed, keeping: keeping.union(found))
                    throw error
                }
            case .deadline:
                break loop
            case .quiet(let generation):
                if generation == quietGeneration, pending.isEmpty { break loop }
            }
        }
        await manager.stopScan()
        await settle(probed, keeping: keeping.union(found))
        return (found, refusal)
    }

    /// Whether an advertiser may host what a search looks for: one of `actors` when the search
    /// is for particular actors (its host marker lists their hashes, or not all of its actors),
    /// else an actor under `service` (it lists the service, or hosts services it does not list).
    /// A peer without a host marker is judged by the service UUIDs it lists.
    static func mayHost(_ data: AdvertisingData, service: BluetoothUUID, actors: Set<UUID>) -> Bool {
        guard let marker = HostAdvertisement(data) else {
            return data.serviceUUIDs.contains(service) || data.serviceUUIDs.contains(ActorServiceLayout.hostService)
        }
        if !actors.isEmpty { return actors.contains { marker.mayHost($0) } }
        return data.serviceUUIDs.contains(service) || marker.unlistedServices
    }

    /// Has the engine connect to a peripheral heard in a scan, for as long as a search looks at it.
    private func probe(_ peripheral: UUID) async {
        guard !state.withLock({ $0.held.contains(peripheral) }) else { return }
        await fleet.pin(peripheral)
    }

    /// After a search: peripherals hosting an actor in `keeping` are held; the engine forgets
    /// the other probed ones (their links end).
    private func settle(_ probed: Set<UUID>, keeping: Set<UUID>) async {
        let hosting = state.withLock { state in
            Set(keeping.compactMap { state.directory[$0]?.peripheral })
        }
        for peripheral in probed.sorted(by: { $0.uuidString < $1.uuidString }) {
            let held = state.withLock { $0.held.contains(peripheral) }
            if held { continue }
            if hosting.contains(peripheral) {
                await keep(probedPeripheral: peripheral)
            } else {
                await fleet.forget(peripheral)
                forgetPeripheral(peripheral)
            }
        }
    }

    /// Drops what the client learnt of a peripheral it no longer deals with (bounded memory in
    /// a place full of peripherals).
    private func forgetPeripheral(_ peripheral: UUID) {
        state.withLock { state in
            state.rssi[peripheral] = nil
            state.lastLoss[peripheral] = nil
            state.linkedBefore.remove(peripheral)
            state.epochs[peripheral] = nil
            state.directory = state.directory.filter { $0.value.peripheral != peripheral }
        }
    }

    /// A probed peripheral hosts an actor the application now holds: it stays connected under
    /// the retention policy, without dropping the link it has.
    private func keep(probedPeripheral peripheral: UUID) async {
        let rssi = state.withLock { state in
            state.held.insert(peripheral)
            return state.rssi[peripheral]
        }
        if case .pooled(let priority) = configuration.links.retention {
            await fleet.offer(peripheral, rssi: rssi ?? -70, priority: priority)
            await fleet.unpin(peripheral)
        }
    }
}
