import BleuCore

/// Turns advertising reports into the advertisements a scan reports, as a pure value: merges a
/// scannable advertisement with its scan response (holding it back up to a deadline), applies
/// the scan's service filter, reports each peripheral once unless duplicates are allowed, and
/// joins extended advertising data that arrives in fragments.
///
/// Time is the radio's elapsed time (a `Duration` since it started, from its injected clock).
/// Bounded: at most `capacity` peripherals pending or remembered as reported; malformed data is
/// counted, never reported.
struct ScanCollector: Sendable {
    typealias Instant = Duration

    struct Found: Sendable, Hashable {
        var address: BluetoothAddress
        var addressType: AddressType
        var data: AdvertisingData
        var rssi: Int
        var isConnectable: Bool
    }

    private struct Pending: Sendable {
        var report: ScanReport
        var data: AdvertisingData
        var deadline: Instant
    }

    let options: ScanOptions
    let responseWait: Duration
    let capacity: Int
    private var pending: [PeerKey: Pending] = [:]
    private var fragments: [PeerKey: [UInt8]] = [:]
    private var lastData: [PeerKey: (data: AdvertisingData, isConnectable: Bool)] = [:]
    private var reported: Set<PeerKey> = []
    /// Reports whose data did not decode.
    private(set) var malformedCount = 0

    init(options: ScanOptions, responseWait: Duration, capacity: Int = 1024) {
        self.options = options
        self.responseWait = responseWait
        self.capacity = capacity
    }

    /// Entries held in all (held back, fragments, last data, reported), for bound checks.
    var storedEntryCount: Int { pending.count + fragments.count + lastData.count + reported.count }

    /// The earliest deadline of an advertisement held back for its scan response.
    var nextDeadline: Instant? { pending.values.map(\.deadline).min() }

    /// Takes one report; returns what is ready to report now.
    mutating func receive(_ report: ScanReport, now: Instant) -> [Found] {
        let key = PeerKey(address: report.address, isRandom: report.addressType.rawValue & 1 == 1)
        var bytes = report.data
        if let head = fragments.removeValue(forKey: key) { bytes = head + bytes }
        if report.isIncomplete {
            if fragments.count < capacity, bytes.count <= 1650 { fragments[key] = bytes }  // the extended maximum
            return []
        }
        guard let data = try? AdvertisingData(decoding: bytes) else {
            malformedCount += 1
            return []
        }
        var out: [Found] = []
        if report.isScanResponse {
            if let held = pending.removeValue(forKey: key) {
                out += emit(key, held.report, held.data.merged(with: data))
            } else if let previous = lastData[key], options.allowDuplicates || !reported.contains(key) {
                var advertised = report
                advertised.isConnectable = previous.isConnectable
                out += emit(key, advertised, previous.data.merged(with: data))
            }
            return out
        }
        if let held = pending.removeValue(forKey: key) { out += emit(key, held.report, held.data) }
        if report.isScannable, pending.count < capacity {
            if options.allowDuplicates || !reported.contains(key) {
                pending[key] = Pending(report: report, data: data, deadline: now + responseWait)
            }
            remember(key, data, report.isConnectable)
        } else {
            out += emit(key, report, data)
        }
        return out
    }

    /// Reports what waited for a scan response past its deadline, without one.
    mutating func expire(now: Instant) -> [Found] {
        var out: [Found] = []
        for (key, held) in pending where held.deadline <= now {
            pending[key] = nil
            out += emit(key, held.report, held.data)
        }
        return out
    }

    private mutating func remember(_ key: PeerKey, _ data: AdvertisingData, _ isConnectable: Bool) {
        if lastData[key] == nil, lastData.count >= capacity { lastData.removeAll(keepingCapacity: true) }
        lastData[key] = (data, isConnectable)
    }

    private mutating func emit(_ key: PeerKey, _ report: ScanReport, _ data: AdvertisingData) -> [Found] {
        remember(key, data, report.isConnectable)
        guard options.matches(data) else { return [] }
        if !options.allowDuplicates {
            guard !reported.contains(key) else { return [] }
            if reported.count >= capacity { reported.removeAll(keepingCapacity: true) }
            reported.insert(key)
        }
        return [Found(address: report.address, addressType: report.addressType, data: data, rssi: report.rssi,
                      isConnectable: report.isConnectable)]
    }
}
