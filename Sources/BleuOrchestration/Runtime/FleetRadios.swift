import BleuCore
import Foundation

/// The radios of a fleet and which device is on which: each radio's owner (it alone scans,
/// connects and cancels on its central), and the fleet's bookkeeping across them — the radio a
/// device is assigned to and the identifier that radio knows it by, the slots in use, the
/// attempts under way and the recent failures the ``RadioChoicePolicy`` weighs.
///
/// A device is assigned when it resolves: to the best-scoring radio among those that heard it
/// lately (or know it, when the fleet's identifiers are the central's), after a scan on every
/// usable radio when none did. Its connection, set-up and cancellation then go to that radio
/// until it resolves again.
final class FleetRadios: Sendable {
    struct Radio: Sendable {
        let name: String
        let slots: Int
        let owner: RadioOwner
        var state: ManagerState = .unknown
        var removed = false
        var attempts = 0

        var usable: Bool { !removed && state == .poweredOn }
    }

    struct Assignment: Sendable, Hashable {
        var radio: Int
        var peripheral: UUID
        /// Whether it holds one of the radio's slots: from the choice until the link or the
        /// attempt ends.
        var occupying: Bool
    }

    private struct Book {
        var radios: [Radio] = []
        var assignments: [UUID: Assignment] = [:]
        /// Per radio: the peripheral's identifier on it → the device assigned there.
        var devices: [[UUID: UUID]] = []
        /// Per radio and device: failures and when the last was.
        var failures: [[UUID: (weight: Double, last: Duration)]] = []

        /// The device's assignment; on a fleet of one central whose identifiers are its own, a
        /// device never resolved (its link restored) is on that central under its identifier.
        func current(_ device: UUID, centralIdentifiers: Bool) -> Assignment? {
            if let assignment = assignments[device] { return assignment }
            return centralIdentifiers ? Assignment(radio: 0, peripheral: device, occupying: false) : nil
        }

        /// The devices holding one of the radio's slots, with the identifiers it knows them by.
        func occupants(of radio: Int) -> [(device: UUID, peripheral: UUID)] {
            assignments.filter { $0.value.radio == radio && $0.value.occupying }.map { (device: $0.key, peripheral: $0.value.peripheral) }
        }

        /// Devices holding one of the radio's slots, `device` excluded.
        func assigned(to radio: Int, except device: UUID? = nil) -> Int {
            assignments.reduce(0) { $0 + ($1.value.radio == radio && $1.value.occupying && $1.key != device ? 1 : 0) }
        }
    }

    /// Whether the fleet's identifiers are the centrals' own (one radio, no `identify`): the
    /// central is then asked whether it knows a device before a scan looks for it.
    let centralIdentifiers: Bool
    private let identify: @Sendable (Advertisement) -> UUID?
    private let policy: RadioChoicePolicy
    private let clock: ElapsedClock
    private let maximumAttempts: Int
    private let connectTimeout: Duration
    private let scanService: BluetoothUUID
    private let scanTimeout: Duration
    private let book = Locked(Book())

    init(radios: [FleetRadio], identify: (@Sendable (Advertisement) -> UUID?)?, configuration: FleetConfiguration,
         clock: ElapsedClock) {
        precondition(!radios.isEmpty, "a fleet needs at least one radio")
        precondition(Set(radios.map(\.name)).count == radios.count, "radio names must be unique in a fleet")
        self.centralIdentifiers = identify == nil
        self.identify = identify ?? { $0.peripheral }
        self.policy = configuration.radioChoice
        self.clock = clock
        self.maximumAttempts = configuration.maximumConnectionAttempts
        self.connectTimeout = configuration.connectTimeout
        self.scanService = configuration.profile.service
        self.scanTimeout = configuration.scanTimeout
        for radio in radios { add(radio) }
    }

    // MARK: The radios

    /// Adds a radio; returns its index, or `nil` when a radio of the fleet has its name, or the
    /// fleet's identifiers are its one central's (another central knows the devices by other
    /// identifiers).
    @discardableResult
    func add(_ radio: FleetRadio) -> Int? {
        if centralIdentifiers && count > 0 { return nil }
        let owner = RadioOwner(central: radio.central, maximumAttempts: maximumAttempts, connectTimeout: connectTimeout,
                               scanService: scanService, scanTimeout: scanTimeout, clock: clock, identify: identify)
        return book.withLock { book in
            if book.radios.contains(where: { $0.name == radio.name && !$0.removed }) { return nil }
            book.radios.append(Radio(name: radio.name, slots: radio.connectionSlots, owner: owner))
            book.devices.append([:])
            book.failures.append([:])
            return book.radios.count - 1
        }
    }

    /// Marks a radio removed: it is chosen no more. Returns its index and the devices assigned
    /// to it (with the identifiers it knows them by), or `nil` when no radio has that name.
    func remove(named name: String) -> (index: Int, devices: [(device: UUID, peripheral: UUID)])? {
        book.withLock { book in
            guard let index = book.radios.firstIndex(where: { $0.name == name && !$0.removed }) else { return nil }
            book.radios[index].removed = true
            return (index, book.occupants(of: index))
        }
    }

    var count: Int { book.withLock { $0.radios.count } }

    func owner(_ index: Int) -> RadioOwner { book.withLock { $0.radios[index].owner } }

    var owners: [RadioOwner] { book.withLock { $0.radios.map(\.owner) } }

    /// The indices of the radios not removed.
    var present: [Int] { book.withLock { book in book.radios.indices.filter { !book.radios[$0].removed } } }

    /// The central that restores state: the one central of a fleet whose identifiers are its
    /// own (restoration is for one radio).
    var restorableCentral: (any CentralManager)? {
        centralIdentifiers ? book.withLock { $0.radios[0].owner.central } : nil
    }

    /// Records a radio's state. Returns the devices assigned to it, with the identifiers it
    /// knows them by, when it just became unusable while another radio is usable (they go
    /// elsewhere).
    func setState(_ state: ManagerState, of index: Int) -> [(device: UUID, peripheral: UUID)] {
        book.withLock { book in
            let wasUsable = book.radios[index].usable
            book.radios[index].state = state
            guard wasUsable, !book.radios[index].usable, book.radios.contains(where: \.usable) else { return [] }
            return book.occupants(of: index)
        }
    }

    /// The state the devices see: powered on while any radio is usable, else the first radio's.
    var aggregateState: ManagerState {
        book.withLock { book in
            if book.radios.contains(where: \.usable) { return .poweredOn }
            return book.radios.first(where: { !$0.removed })?.state ?? .unsupported
        }
    }

    /// Whether some radio other than `index` is usable now.
    func anotherUsable(than index: Int) -> Bool {
        book.withLock { book in book.radios.indices.contains { $0 != index && book.radios[$0].usable } }
    }

    // MARK: Devices

    /// The device a radio's event about `peripheral` concerns: the one assigned to that radio
    /// under that identifier now.
    func device(on index: Int, peripheral: UUID) -> UUID? {
        if centralIdentifiers { return peripheral }
        return book.withLock { book in
            guard let device = book.devices[index][peripheral], book.assignments[device]?.radio == index else { return nil }
            return device
        }
    }

    /// The name of the radio a device is assigned to.
    func radioName(of device: UUID) -> String? {
        book.withLock { book in book.assignments[device].map { book.radios[$0.radio].name } }
    }

    /// Devices assigned to each radio now, by name.
    var occupancy: [String: Int] {
        book.withLock { book in
            var counts: [String: Int] = [:]
            for (index, radio) in book.radios.enumerated() where !radio.removed {
                counts[radio.name] = book.assigned(to: index)
            }
            return counts
        }
    }

    /// The link of a device as it was assigned.
    func link(of device: UUID) throws(BleuError) -> FleetLink {
        try book.withLock { book throws(BleuError) -> FleetLink in
            guard let assignment = book.current(device, centralIdentifiers: centralIdentifiers) else { throw .notConnected(device) }
            let radio = book.radios[assignment.radio]
            return FleetLink(device: device, radio: radio.name, central: radio.owner.central, peripheral: assignment.peripheral)
        }
    }

    /// Finds a device and assigns it to the best radio for it (see ``RadioChoicePolicy``).
    ///
    /// The radios that heard it within the sighting lifetime count at once. The others listen
    /// (a scan each, then the policy's window after the first hears it) when none heard it, or
    /// when it failed lately on the best of those that did — so a failing device can move.
    /// - Throws: ``BleuCore/BleuError/peripheralNotFound(_:)`` when no usable radio heard it;
    ///   ``BleuCore/BleuError/bluetoothPoweredOff`` when no radio is usable.
    func resolve(_ device: UUID) async throws {
        let usable = book.withLock { book in book.radios.indices.filter { book.radios[$0].usable } }
        guard !usable.isEmpty else { throw BleuError.bluetoothPoweredOff }
        let started = clock.now()
        var heard = await sightings(of: device, on: usable, since: nil)
        let unheard = usable.filter { heard[$0] == nil }
        if heard.isEmpty {
            try await listen(for: device, on: usable)
        } else if !unheard.isEmpty, failedLately(device, onBestOf: heard) {
            // Another radio may carry it: the ones that did not hear it listen too, for the
            // window only (the device may be out of their range; those that heard it remain).
            do {
                try await listen(for: device, on: unheard, giveUpAfter: policy.listenWindow)
            } catch {
                try Task.checkCancellation()
            }
        }
        heard = await sightings(of: device, on: usable, since: started)
        try Task.checkCancellation()
        let now = clock.now()
        let chosen = book.withLock { book -> Bool in
            // A radio removed or powered off meanwhile is not chosen.
            let options = heard.filter { book.radios[$0.key].usable }.map { radio, sighting in
                let failure = book.failures[radio][device]
                return RadioChoicePolicy.Option(
                    radio: radio, rssi: sighting.rssi, assigned: book.assigned(to: radio, except: device),
                    slots: book.radios[radio].slots, attempts: book.radios[radio].attempts,
                    failures: failure.map { policy.decayedFailures($0.weight, age: now - $0.last) } ?? 0)
            }
            guard let chosen = policy.choose(options), let sighting = heard[chosen] else { return false }
            if let old = book.assignments[device] { book.devices[old.radio][old.peripheral] = nil }
            book.assignments[device] = Assignment(radio: chosen, peripheral: sighting.peripheral, occupying: true)
            book.devices[chosen][sighting.peripheral] = device
            return true
        }
        guard chosen else { throw BleuError.peripheralNotFound(device) }
    }

    /// Whether the device failed lately (by at least half a failure, decayed) on the radio that
    /// heard it best.
    private func failedLately(_ device: UUID, onBestOf heard: [Int: (peripheral: UUID, rssi: Int?)]) -> Bool {
        let now = clock.now()
        return book.withLock { book in
            guard let best = heard.max(by: { ($0.value.rssi ?? policy.unheardRSSI, $1.key) < ($1.value.rssi ?? policy.unheardRSSI, $0.key) }),
                  let failure = book.failures[best.key][device] else { return false }
            return policy.decayedFailures(failure.weight, age: now - failure.last) >= 0.5
        }
    }

    /// What each radio listed knows of a device: a sighting within the lifetime (or since
    /// `since`, so a listen's own sightings count whatever the lifetime), or (with the
    /// centrals' own identifiers) that its central knows it.
    private func sightings(of device: UUID, on radios: [Int], since: Duration?) async -> [Int: (peripheral: UUID, rssi: Int?)] {
        var heard: [Int: (peripheral: UUID, rssi: Int?)] = [:]
        for radio in radios {
            let owner = owner(radio)
            if let sighting = await owner.sighting(of: device, within: policy.sightingLifetime, since: since) {
                heard[radio] = (sighting.peripheral, sighting.rssi)
            } else if centralIdentifiers, await owner.knows(device) {
                heard[radio] = (device, nil)
            }
        }
        return heard
    }

    /// Scans on every radio listed until one hears the device, then lets the others listen for
    /// the policy's window. When none heard it, throws ``BleuCore/BleuError/peripheralNotFound(_:)``
    /// if any radio's scan ended that way (not found is what happened), else the first error.
    /// - Parameter patience: when given, the listen ends after it even if no radio heard the device.
    private func listen(for device: UUID, on radios: [Int], giveUpAfter patience: Duration? = nil) async throws {
        let owners = radios.map { owner($0) }
        let clock = clock
        let window = policy.listenWindow
        enum Outcome: Sendable { case heard, failed(any Error), windowClosed }
        let outcome: Outcome = await withTaskGroup(of: Outcome.self) { group in
            /// Ends the listen `after` from now, whoever has heard the device by then.
            func closeWindow(after duration: Duration) {
                let deadline = clock.now() + duration
                group.addTask {
                    do { try await clock.sleep(until: deadline) } catch {}
                    return .windowClosed
                }
            }
            if let patience { closeWindow(after: patience) }
            for owner in owners {
                group.addTask {
                    do {
                        try await owner.scan(for: device)
                        return .heard
                    } catch {
                        return .failed(error)
                    }
                }
            }
            var firstError: (any Error)?
            var notFound: (any Error)?
            var heardAny = false
            var pending = owners.count
            while pending > 0, let next = await group.next() {
                switch next {
                case .heard:
                    pending -= 1
                    if !heardAny && pending > 0 && patience == nil { closeWindow(after: window) }
                    heardAny = true
                case .failed(let error):
                    pending -= 1
                    if case BleuError.peripheralNotFound = error { notFound = error }
                    firstError = firstError ?? error
                case .windowClosed:
                    pending = 0
                }
            }
            group.cancelAll()
            if heardAny { return .heard }
            return .failed(notFound ?? firstError ?? BleuError.peripheralNotFound(device))
        }
        if case .failed(let error) = outcome { throw error }
    }

    /// Connects a device on its radio.
    func connect(_ device: UUID) async throws {
        let (index, assignment, owner) = try book.withLock { book throws(BleuError) in
            guard let assignment = book.current(device, centralIdentifiers: centralIdentifiers) else { throw .notConnected(device) }
            // Its radio was removed or powered off since the choice: the next attempt chooses again.
            guard book.radios[assignment.radio].usable else { throw .connectionFailed(device, reason: .unspecified) }
            // Counted here (as well as in the owner's cap) so the choice can read it synchronously.
            book.radios[assignment.radio].attempts += 1
            return (assignment.radio, assignment, book.radios[assignment.radio].owner)
        }
        defer { book.withLock { $0.radios[index].attempts -= 1 } }
        try await owner.connect(assignment.peripheral)
    }

    /// Cancels a link on the radio it is on.
    func cancel(_ link: FleetLink) async {
        guard let owner = book.withLock({ book in book.radios.first { $0.name == link.radio }?.owner }) else { return }
        await owner.cancel(link.peripheral)
    }

    /// Cancels a device's connection or attempt on its radio.
    func cancel(_ device: UUID) async {
        guard let (owner, peripheral) = book.withLock({ book in
            book.current(device, centralIdentifiers: centralIdentifiers).map { (book.radios[$0.radio].owner, $0.peripheral) }
        }) else { return }
        await owner.cancel(peripheral)
    }

    /// A device's attempt or link failed on its radio: the choice weighs it next time.
    func failed(_ device: UUID) {
        let now = clock.now()
        book.withLock { book in
            guard let radio = book.assignments[device]?.radio else { return }
            let previous = book.failures[radio][device].map { policy.decayedFailures($0.weight, age: now - $0.last) } ?? 0
            book.failures[radio][device] = (previous + 1, now)
        }
    }

    /// A device's link or attempt ended: its slot is free.
    func released(_ device: UUID) {
        book.withLock { $0.assignments[device]?.occupying = false }
    }

    /// Forgets a device altogether.
    func forget(_ device: UUID) {
        book.withLock { book in
            if let old = book.assignments.removeValue(forKey: device) { book.devices[old.radio][old.peripheral] = nil }
            for radio in book.failures.indices { book.failures[radio][device] = nil }
        }
    }

    /// Attempts made on every radio, the most any radio ran at once, and overlapping attempts.
    func statistics() async -> (attempts: Int, peak: Int, overlapping: Int) {
        var total = (attempts: 0, peak: 0, overlapping: 0)
        for owner in owners {
            total.attempts += await owner.attemptCount
            total.peak = max(total.peak, await owner.peakAttempts)
            total.overlapping += await owner.overlappingAttempts
        }
        return total
    }
}
