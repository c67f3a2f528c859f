import BleuATT
import BleuCore
import Foundation

/// Managers joining and leaving the bus, state restoration, and radio state changes.
extension Engine {
    // MARK: Centrals

    /// Creates a central, or hands a restorable one to a new manager (CoreBluetooth's
    /// willRestoreState): its links, scan and subscriptions carry over.
    mutating func attachCentral(restoreIdentifier: String?, device: String?, mtu: Int?) -> (key: CentralKey, generation: Int, hub: EventHub<CentralEvent>) {
        let hub = EventHub<CentralEvent>(limit: configuration.eventBufferLimit, onReceipts: hooks.onReceipts)
        let mtu = (mtu ?? configuration.centralMTU).clamped(EmulatorConfiguration.minimumMTU, EmulatorConfiguration.maximumMTU)
        if let restoreIdentifier, let key = restorable.centrals[restoreIdentifier], var node = centrals[key] {
            if node.attached { node.hub.finish() }
            finishStreams(ofCentral: key)
            node.generation += 1
            node.attached = true
            node.hub = hub
            node.scan?.stream = nil
            let linked = node.links.values.sorted().compactMap { links[$0] }
            let restoration = CentralRestoration(
                peripherals: linked.map(\.peripheralID) + node.pending.keys.sorted().compactMap { node.pending[$0]?.peripheralID },
                scanOptions: node.scan?.options,
                subscriptions: linked.flatMap { $0.subscriptions.values.sorted { $0.valueHandle < $1.valueHandle } })
            node.restoration = restoration
            hub.setPrefix([.stateChanged(node.state), .willRestoreState(restoration)])
            centrals[key] = node
            return (key, node.generation, hub)
        }
        let key = centrals.allocate()
        let address = newAddress(device: device ?? restoreIdentifier.map { "central:" + $0 })
        hub.setPrefix([.stateChanged(.poweredOn)])
        centrals[key] = CentralNode(key: key, address: address, restoreIdentifier: restoreIdentifier, hub: hub, mtu: mtu)
        if let restoreIdentifier { restorable.centrals[restoreIdentifier] = key }
        return (key, 0, hub)
    }

    /// The manager went away. A restorable central keeps its links, scan and subscriptions for
    /// its successor; any other ends them, as when an application terminates.
    mutating func detachCentral(_ key: CentralKey, generation: Int) {
        guard let node = centrals[key], node.generation == generation, node.attached else { return }
        node.hub.finish()
        finishStreams(ofCentral: key)
        if node.restoreIdentifier != nil {
            centrals[key]?.attached = false
            centrals[key]?.scan?.stream = nil
            return
        }
        stopScan(central: key)
        for (_, attempt) in node.pending {
            for waiter in attempt.waiters { fail(waiter, BleuError.cancelled) }
        }
        centrals[key]?.pending.removeAll()
        // A lost link cannot carry the termination: it ends at its supervision timeout.
        for linkID in node.links.values.sorted() where links[linkID]?.lostAt == nil {
            tearDown(linkID, centralReason: .localHostTerminated, peripheralReason: .remoteUserTerminated)
        }
        centrals.removeValue(forKey: key)
    }

    /// The process behind a central on a hub went away without a word: its radio left the
    /// air. Its scan stops, its connection attempts fail, and its links are lost — its peers
    /// see a supervision timeout, as on real air. Releasing the manager afterwards detaches it.
    mutating func vanishCentral(_ key: CentralKey, generation: Int) {
        guard let node = centrals[key], node.generation == generation, node.attached else { return }
        stopScan(central: key)
        for (_, attempt) in node.pending {
            for waiter in attempt.waiters { fail(waiter, BleuError.cancelled) }
        }
        centrals[key]?.pending.removeAll()
        for linkID in node.links.values.sorted() { loseLink(linkID) }
    }

    /// The node behind a manager, or the error when the manager was replaced.
    func central(_ key: CentralKey, generation: Int) throws(BleuError) -> CentralNode {
        try Self.current(centrals[key], generation: generation, powered: false)
    }

    /// Like ``central(_:generation:)`` and also requires the radio to be on.
    func poweredCentral(_ key: CentralKey, generation: Int) throws(BleuError) -> CentralNode {
        try Self.current(centrals[key], generation: generation, powered: true)
    }

    /// A node if the manager asking is its current one (and, when `powered`, its radio is on).
    private static func current<Node: ManagedNode>(_ node: Node?, generation: Int,
                                                   powered: Bool) throws(BleuError) -> Node {
        guard let node, node.generation == generation, node.attached else {
            throw .invalidState(.managerReplaced)
        }
        if powered, let error = node.state.unavailableError { throw error }
        return node
    }

    /// What the two ends of a link report when one side's manager leaves `poweredOn` for
    /// `state`. Bluetooth turned off (or reset, unsupported, unknown) takes the radio away: that
    /// side reports ``DisconnectReason/poweredOff`` and the peer HCI 0x15 (Remote Device
    /// Terminated Connection due to Power Off). Losing the permission (`unauthorized`) leaves
    /// the radio on and the system ends the application's connections as a host does: that
    /// side reports ``DisconnectReason/localHostTerminated`` (0x16), the peer
    /// ``DisconnectReason/remoteUserTerminated`` (0x13).
    static func disconnectReasons(leavingPowerFor state: ManagerState) -> (local: DisconnectReason, peer: DisconnectReason) {
        switch state {
        case .unauthorized: (.localHostTerminated, .remoteUserTerminated)
        case .poweredOff, .resetting, .unsupported, .unknown, .poweredOn: (.poweredOff, DisconnectReason(hciCode: 0x15))
        }
    }

    /// The test changes the central's radio state. Leaving `poweredOn` ends every connection
    /// (with the reasons of ``disconnectReasons(leavingPowerFor:)``), fails pending attempts
    /// and stops the scan with the state's error, as a real stack does.
    mutating func setState(_ state: ManagerState, ofCentral key: CentralKey) {
        guard let node = centrals[key], node.state != state else { return }
        centrals[key]?.state = state
        var prefix: [CentralEvent] = [.stateChanged(state)]
        if let restoration = node.restoration { prefix.append(.willRestoreState(restoration)) }
        node.hub.setPrefix(prefix)
        node.hub.yield(.stateChanged(state))
        guard let error = state.unavailableError else { return }
        if let scan = node.scan, let stream = scan.stream { endStream(stream, error: error) }
        centrals[key]?.scan = nil
        for (_, attempt) in node.pending {
            for waiter in attempt.waiters { fail(waiter, error) }
        }
        centrals[key]?.pending.removeAll()
        let reasons = Self.disconnectReasons(leavingPowerFor: state)
        for linkID in node.links.values.sorted() {
            tearDown(linkID, centralReason: reasons.local, peripheralReason: reasons.peer)
        }
    }

    private mutating func finishStreams(ofCentral key: CentralKey) {
        guard let node = centrals[key] else { return }
        if let stream = node.scan?.stream { endStream(stream, error: nil) }
        for linkID in node.links.values {
            guard let link = links[linkID] else { continue }
            for ids in link.valueStreams.values {
                for stream in ids { endStream(stream, error: nil) }
            }
            links[linkID]?.valueStreams.removeAll()
        }
    }

    // MARK: Peripherals

    /// Creates a peripheral, or hands a restorable one to a new manager: its services and
    /// advertising carry over.
    mutating func attachPeripheral(restoreIdentifier: String?, device: String?, mtu: Int?) -> (key: PeripheralKey, generation: Int, hub: EventHub<PeripheralEvent>) {
        let hub = EventHub<PeripheralEvent>(limit: configuration.eventBufferLimit, onReceipts: hooks.onReceipts)
        let mtu = (mtu ?? configuration.peripheralMTU).clamped(EmulatorConfiguration.minimumMTU, EmulatorConfiguration.maximumMTU)
        if let restoreIdentifier, let key = restorable.peripherals[restoreIdentifier], var node = peripherals[key] {
            if node.attached { node.hub.finish() }
            node.generation += 1
            node.attached = true
            node.hub = hub
            let restoration = PeripheralRestoration(services: node.database.services.map(\.published),
                                                    advertisement: node.advertising?.advertisement,
                                                    scanResponse: node.advertising?.scanResponse)
            node.restoration = restoration
            hub.setPrefix([.stateChanged(node.state), .willRestoreState(restoration)])
            peripherals[key] = node
            return (key, node.generation, hub)
        }
        let key = peripherals.allocate()
        let address = newAddress(device: device ?? restoreIdentifier.map { "peripheral:" + $0 })
        hub.setPrefix([.stateChanged(.poweredOn)])
        peripherals[key] = PeripheralNode(key: key, address: address, restoreIdentifier: restoreIdentifier, hub: hub,
                                          mtu: mtu, distance: configuration.rssi.defaultDistance)
        if let restoreIdentifier { restorable.peripherals[restoreIdentifier] = key }
        succeedDevice(address: address, as: key)
        return (key, 0, hub)
    }

    /// A device whose earlier manager went away is back (its app started again): centrals
    /// that knew it keep its identifier, and their pending connection attempts wait for the
    /// new node — as CoreBluetooth's `connect` to a known peripheral completes when the device
    /// advertises again.
    private mutating func succeedDevice(address: UInt64, as key: PeripheralKey) {
        for centralKey in centrals.keys.sorted() {
            guard let central = centrals[centralKey] else { continue }
            let id = identifier(of: address, seenBy: central.address)
            guard let old = central.known[id], old != key, peripherals[old] == nil else { continue }
            centrals[centralKey]?.known[id] = key
            if let name = centrals[centralKey]?.names.removeValue(forKey: old) { centrals[centralKey]?.names[key] = name }
            if let attempt = centrals[centralKey]?.pending.removeValue(forKey: old) {
                var moved = attempt
                moved.establishing = false
                centrals[centralKey]?.pending[key] = moved
            }
        }
    }

    /// The manager went away. A restorable peripheral keeps its services, advertising and
    /// links for its successor; any other disappears from the air.
    mutating func detachPeripheral(_ key: PeripheralKey, generation: Int) {
        guard let node = peripherals[key], node.generation == generation, node.attached else { return }
        node.hub.finish()
        if node.restoreIdentifier != nil {
            peripherals[key]?.attached = false
            return
        }
        peripherals[key]?.advertising = nil
        for linkID in node.links.values.sorted() where links[linkID]?.lostAt == nil {
            tearDown(linkID, centralReason: .remoteUserTerminated, peripheralReason: .localHostTerminated)
        }
        peripherals.removeValue(forKey: key)
    }

    /// The process behind a peripheral on a hub went away: it stops advertising and its links
    /// are lost (its peers see a supervision timeout). Releasing the manager afterwards
    /// detaches it.
    mutating func vanishPeripheral(_ key: PeripheralKey, generation: Int) {
        guard let node = peripherals[key], node.generation == generation, node.attached else { return }
        stopAdvertising(peripheral: key)
        for linkID in node.links.values.sorted() { loseLink(linkID) }
    }

    func peripheral(_ key: PeripheralKey, generation: Int) throws(BleuError) -> PeripheralNode {
        try Self.current(peripherals[key], generation: generation, powered: false)
    }

    func poweredPeripheral(_ key: PeripheralKey, generation: Int) throws(BleuError) -> PeripheralNode {
        try Self.current(peripherals[key], generation: generation, powered: true)
    }

    /// The test changes the peripheral's radio state. Leaving `poweredOn` stops advertising,
    /// ends every connection (with the reasons of ``disconnectReasons(leavingPowerFor:)``)
    /// and clears the GATT database and L2CAP PSMs — CoreBluetooth's
    /// peripheral manager requires services to be added again after power returns.
    mutating func setState(_ state: ManagerState, ofPeripheral key: PeripheralKey) {
        guard let node = peripherals[key], node.state != state else { return }
        peripherals[key]?.state = state
        var prefix: [PeripheralEvent] = [.stateChanged(state)]
        if let restoration = node.restoration { prefix.append(.willRestoreState(restoration)) }
        node.hub.setPrefix(prefix)
        node.hub.yield(.stateChanged(state))
        guard state != .poweredOn else { return }
        peripherals[key]?.advertising = nil
        let reasons = Self.disconnectReasons(leavingPowerFor: state)
        for linkID in node.links.values.sorted() {
            tearDown(linkID, centralReason: reasons.peer, peripheralReason: reasons.local)
        }
        peripherals[key]?.database.removeAll()
        peripherals[key]?.psms.removeAll()
    }

    /// Places a peripheral `distance` metres from every central. Out of range, its links are
    /// lost (supervision timeout) and scans stop hearing it; back in range, pending connection
    /// attempts proceed.
    mutating func setDistance(_ distance: Double, ofPeripheral key: PeripheralKey) {
        guard let node = peripherals[key] else { return }
        peripherals[key]?.distance = max(0, distance)
        if configuration.rssi.isInRange(distance) {
            tryEstablishAll(peripheral: key)
            advertisingChanged(peripheral: key)
        } else {
            for linkID in node.links.values.sorted() { loseLink(linkID) }
        }
    }

    /// The RSSI a central measures from a peripheral now, with noise.
    mutating func rssi(ofPeripheral key: PeripheralKey) -> Int {
        let model = configuration.rssi
        let mean = model.meanRSSI(atDistance: peripherals[key]?.distance ?? model.defaultDistance)
        guard model.variation > 0 else { return mean }
        return mean + Int.random(in: -model.variation...model.variation, using: &chance.noise)
    }
}

extension Engine {
    /// The bus starts afresh: every manager's streams end, every operation in flight fails,
    /// and the scheduler stops. The engine is dropped afterwards.
    mutating func shutDown() {
        let error = BleuError.invalidState(.busReset)
        for node in centrals.values { node.hub.finish() }
        for node in peripherals.values { node.hub.finish() }
        for id in streams.keys.sorted() { endStream(id, error: error) }
        for id in waiters.waitingIDs { fail(id, error) }
        timers.stop()
    }
}
