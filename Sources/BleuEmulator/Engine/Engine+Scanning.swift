import BleuATT
import BleuCore
import Foundation

/// Advertising and scanning.
extension Engine {
    // MARK: Advertising

    /// Starts (or replaces) advertising. Each payload must encode within 31 bytes; scanners
    /// decode exactly the bytes sent.
    mutating func startAdvertising(peripheral key: PeripheralKey, _ advertisement: AdvertisingData,
                                   scanResponse: AdvertisingData?, connectable: Bool = true) throws(BleuError) {
        let encoded: Data
        var response: Data?
        do {
            encoded = try advertisement.encoded()
        } catch {
            throw .invalidData(.advertisingData(error))
        }
        do {
            response = try scanResponse?.encoded()
        } catch {
            throw .invalidData(.scanResponse(error))
        }
        var heard: AdvertisingData
        do {
            heard = try AdvertisingData(decoding: encoded)
            if let response { heard = heard.merged(with: try AdvertisingData(decoding: response)) }
        } catch {
            throw .invalidData(.advertisingData(error))
        }
        let id = numbers.nextProcedure()
        peripherals[key]?.advertising = AdvertisingState(id: id, advertisement: advertisement, scanResponse: scanResponse,
                                                         connectable: connectable, heard: heard, length: encoded.count,
                                                         since: now, bytes: Array(encoded), scanResponseBytes: Array(response ?? Data()))
        advertisingChanged(peripheral: key)
        tryEstablishAll(peripheral: key)
    }

    mutating func stopAdvertising(peripheral key: PeripheralKey) {
        peripherals[key]?.advertising = nil
    }

    /// Scanners hear a peripheral that started advertising, changed its data or came back in range.
    mutating func advertisingChanged(peripheral key: PeripheralKey) {
        guard let advertising = peripherals[key]?.advertising else { return }
        for central in centrals.keys.sorted() {
            guard let scan = centrals[central]?.scan else { continue }
            if isRealistic {
                let index = advertisingIndex(of: key, atOrAfter: now)
                schedule(.advertisingEvent(central: central, scan: scan.id, peripheral: key, advertising: advertising.id, index: index),
                         at: advertisingTime(of: key, index: index))
            } else {
                hear(central: central, peripheral: key)
            }
        }
    }

    /// When advertising event `index` of a peripheral happens: every advertising interval,
    /// plus the specification's pseudo-random advDelay of 0–10 ms (Vol 6 Part B §4.4.2.2),
    /// drawn from the bus seed so runs repeat.
    func advertisingTime(of key: PeripheralKey, index: Int64) -> Duration {
        guard let node = peripherals[key], let advertising = node.advertising else { return now }
        var random = SeededRandomNumberGenerator(seed: seed ^ node.address &* 0x9E37_79B9 ^ UInt64(bitPattern: index) &* 0xBF58_476D)
        let delay = Int64(random.next() % 10_001)
        return advertising.since + configuration.advertisingInterval * Int(index) + .microseconds(delay)
    }

    private func advertisingIndex(of key: PeripheralKey, atOrAfter time: Duration) -> Int64 {
        guard let advertising = peripherals[key]?.advertising else { return 0 }
        let elapsed = (time - advertising.since).nanoseconds
        var index = max(0, elapsed / configuration.advertisingInterval.nanoseconds - 1)
        while advertisingTime(of: key, index: index) < time { index += 1 }
        return index
    }

    // MARK: Scanning

    /// Starts a scan (ending the one running) and returns its stream.
    mutating func startScan(central key: CentralKey, options: ScanOptions, sink: StreamSink? = nil) -> StreamID {
        stopScan(central: key)
        let stream = newStream(.scan(central: key), limit: configuration.scanBufferLimit, sink: sink)
        let id = numbers.nextProcedure()
        centrals[key]?.scan = BusScan(id: id, options: options, stream: stream)
        hearAdvertisers(central: key, scan: id)
        return stream
    }

    /// A scan that just started hears every peripheral advertising: at its next advertising
    /// event after the scan latency (realistic timing), or at once.
    mutating func hearAdvertisers(central key: CentralKey, scan id: UInt64) {
        for peripheral in peripherals.keys.sorted() where peripherals[peripheral]?.advertising != nil {
            if isRealistic {
                let index = advertisingIndex(of: peripheral, atOrAfter: now + configuration.scanLatency)
                schedule(.advertisingEvent(central: key, scan: id, peripheral: peripheral,
                                           advertising: peripherals[peripheral]!.advertising!.id, index: index),
                         at: advertisingTime(of: peripheral, index: index))
            } else {
                hear(central: key, peripheral: peripheral)
            }
        }
    }

    /// Stops the scan; its stream ends normally.
    mutating func stopScan(central key: CentralKey) {
        guard let scan = centrals[key]?.scan else { return }
        centrals[key]?.scan = nil
        if let stream = scan.stream { endStream(stream, error: nil) }
    }

    mutating func advertisingEvent(central key: CentralKey, scan: UInt64, peripheral: PeripheralKey, advertising: UInt64, index: Int64) {
        guard let session = centrals[key]?.scan, session.id == scan,
              peripherals[peripheral]?.advertising?.id == advertising else { return }
        hear(central: key, peripheral: peripheral)
        guard let after = centrals[key]?.scan, after.options.allowDuplicates || !after.reported.contains(peripheral) else { return }
        schedule(.advertisingEvent(central: key, scan: scan, peripheral: peripheral, advertising: advertising, index: index + 1),
                 at: advertisingTime(of: peripheral, index: index + 1))
    }

    /// The central's scan hears one advertisement of a peripheral, if it can: the peripheral
    /// advertises and is in range, the scan's filters match, and (without duplicates) it was
    /// not reported in this scan yet.
    mutating func hear(central key: CentralKey, peripheral: PeripheralKey) {
        guard let node = centrals[key], node.state == .poweredOn, let scan = node.scan,
              let peripheralNode = peripherals[peripheral], peripheralNode.state == .poweredOn,
              node.external == nil || peripheralNode.address != node.address,
              let advertising = peripheralNode.advertising,
              configuration.rssi.isInRange(peripheralNode.distance),
              scan.options.matches(advertising.heard),
              scan.options.allowDuplicates || !scan.reported.contains(peripheral) else { return }
        if let host = node.external {
            return hearExternally(host, central: key, peripheral: peripheral, advertising: advertising, active: scan.active)
        }
        guard let stream = scan.stream else { return }
        let id = identifier(of: peripheralNode.address, seenBy: node.address)
        guard hasRoom(stream) else {
            if !isRealistic, !scan.backlog.contains(peripheral) { centrals[key]?.scan?.backlog.append(peripheral) }
            return
        }
        let advertisement = Advertisement(peripheral: id, data: advertising.heard, rssi: rssi(ofPeripheral: peripheral),
                                          isConnectable: advertising.connectable)
        centrals[key]?.known[id] = peripheral
        if let name = advertising.heard.localName { centrals[key]?.names[peripheral] = name }
        centrals[key]?.scan?.reported.insert(peripheral)
        record(.advertisement, length: advertising.length,
               "\(id) heard, RSSI \(advertisement.rssi) dBm")
        push(.advertisement(advertisement), to: stream)
    }

    /// Instant timing: the scan stream made room, so advertisers heard while it was full are reported.
    mutating func pumpScanBacklog(_ key: CentralKey) {
        while let scan = centrals[key]?.scan, let stream = scan.stream, hasRoom(stream),
              let peripheral = centrals[key]?.scan?.backlog.popFirst() {
            hear(central: key, peripheral: peripheral)
        }
    }
}
