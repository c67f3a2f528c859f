import BleuCore

/// Everything about how an ``EmulatorBus`` behaves. Start from a preset and change any knob:
///
/// ```swift
/// var configuration = EmulatorConfiguration.default
/// configuration.phy = .le1M
/// configuration.dataLength = 27
/// let bus = EmulatorBus(configuration: configuration)
/// ```
///
/// Values outside their range are clamped when a bus is created (``normalized()``);
/// ``validate()`` reports them instead.
public struct EmulatorConfiguration: Sendable, Hashable, Codable {
    /// How PDUs travel.
    public enum Timing: String, Sendable, Hashable, Codable {
        /// In order, at once: nothing waits on the clock (the clock only arms timeouts).
        case instant
        /// On the link model: every PDU takes air time and goes at a connection event.
        case realistic
    }

    // MARK: Timing and latencies

    /// Instant or realistic delivery.
    public var timing: Timing
    /// From the start of a scan until the radio hears advertisements (realistic timing).
    public var scanLatency: Duration
    /// From a connection request to the first connection event, once the peripheral is
    /// advertising and in range (realistic timing).
    public var connectLatency: Duration
    /// Host processing added to each discovery procedure, on top of its ATT exchanges
    /// (realistic timing).
    public var discoveryLatency: Duration
    /// The advertising interval; each advertising event also gets the specification's random
    /// 0–10 ms advDelay (realistic timing).
    public var advertisingInterval: Duration

    // MARK: Link

    /// The ATT MTU a central offers (23–517; 185 on iOS). A manager's options may override it.
    public var centralMTU: Int
    /// The ATT MTU a peripheral offers (23–517). The link uses the smaller of the two.
    public var peripheralMTU: Int
    /// The LL data length: the largest LL payload per packet (27–251).
    public var dataLength: Int
    /// The physical layer.
    public var phy: PHY
    /// The connection interval (7.5 ms–4 s, a multiple of 1.25 ms).
    public var connectionInterval: Duration
    /// The most exchanges in one connection event; `nil` packs as many as fit in the interval.
    public var maximumPacketsPerConnectionEvent: Int?
    /// How long a lost link goes unnoticed before both sides report
    /// ``/BleuCore/DisconnectReason/supervisionTimeout`` (100 ms–32 s; realistic timing; instant timing
    /// reports at once).
    public var supervisionTimeout: Duration
    /// How long a client waits for the answer to an ATT request (30 s in the specification).
    public var attTransactionTimeout: Duration

    // MARK: Queues and limits

    /// Writes without response one link holds before ``/BleuCore/CentralManager/canSendWriteWithoutResponse(to:)``
    /// turns false. A write's slot frees when the peripheral's application has received it.
    public var writeWithoutResponseQueueDepth: Int
    /// Notifications and indications a peripheral holds before `updateValue` returns `false`.
    public var notificationQueueDepth: Int
    /// Values one subscription stream buffers for a slow consumer; past that the link holds back.
    public var subscriptionBufferLimit: Int
    /// Advertisements one scan stream buffers for a slow consumer; past that the radio does
    /// not hear advertisers (they are heard again later).
    public var scanBufferLimit: Int
    /// Events one manager event stream buffers; past that the oldest are dropped.
    public var eventBufferLimit: Int
    /// Prepared writes a server queues before answering Prepare Queue Full (0x09).
    public var prepareQueueLimit: Int
    /// Operations one link queues behind the one in progress before operations fail with
    /// ``/BleuCore/BleuError/limitReached(_:)``.
    public var maximumQueuedOperations: Int
    /// Connections (established or being established) one central holds.
    public var maximumConnectionsPerCentral: Int

    // MARK: Radio, faults, security

    /// Received signal strength and range.
    public var rssi: RSSIModel
    /// Faults to inject.
    public var faults: FaultRates
    /// How pairing goes.
    public var pairing: PairingConfiguration
    /// L2CAP channel parameters.
    public var l2cap: L2CAPConfiguration
    /// The seed of every random choice (faults, RSSI noise, advertising delays, identifiers);
    /// `nil` draws one, which the bus reports as ``EmulatorBus/seed``.
    public var seed: UInt64?
    /// Link events the bus keeps for ``EmulatorBus/trace``; older ones are dropped. 0 records nothing.
    public var traceCapacity: Int
    /// What the CoreBluetooth-shaped API (`CoreBluetoothEmulator`) adds on top.
    public var coreBluetooth: CoreBluetoothOptions

    /// A configuration; each parameter sets the knob of the same name (the defaults are `.default`'s).
    public init(
        timing: Timing = .realistic,
        scanLatency: Duration = .milliseconds(10),
        connectLatency: Duration = .milliseconds(30),
        discoveryLatency: Duration = .milliseconds(5),
        advertisingInterval: Duration = .milliseconds(100),
        centralMTU: Int = 185,
        peripheralMTU: Int = 517,
        dataLength: Int = 251,
        phy: PHY = .le2M,
        connectionInterval: Duration = .milliseconds(30),
        maximumPacketsPerConnectionEvent: Int? = nil,
        supervisionTimeout: Duration = .seconds(2),
        attTransactionTimeout: Duration = .seconds(30),
        writeWithoutResponseQueueDepth: Int = 16,
        notificationQueueDepth: Int = 16,
        subscriptionBufferLimit: Int = 64,
        scanBufferLimit: Int = 1024,
        eventBufferLimit: Int = 4096,
        prepareQueueLimit: Int = 64,
        maximumQueuedOperations: Int = 256,
        maximumConnectionsPerCentral: Int = 8,
        rssi: RSSIModel = RSSIModel(),
        faults: FaultRates = .none,
        pairing: PairingConfiguration = PairingConfiguration(),
        l2cap: L2CAPConfiguration = L2CAPConfiguration(),
        seed: UInt64? = nil,
        traceCapacity: Int = 10_000,
        coreBluetooth: CoreBluetoothOptions = CoreBluetoothOptions()
    ) {
        self.timing = timing
        self.scanLatency = scanLatency
        self.connectLatency = connectLatency
        self.discoveryLatency = discoveryLatency
        self.advertisingInterval = advertisingInterval
        self.centralMTU = centralMTU
        self.peripheralMTU = peripheralMTU
        self.dataLength = dataLength
        self.phy = phy
        self.connectionInterval = connectionInterval
        self.maximumPacketsPerConnectionEvent = maximumPacketsPerConnectionEvent
        self.supervisionTimeout = supervisionTimeout
        self.attTransactionTimeout = attTransactionTimeout
        self.writeWithoutResponseQueueDepth = writeWithoutResponseQueueDepth
        self.notificationQueueDepth = notificationQueueDepth
        self.subscriptionBufferLimit = subscriptionBufferLimit
        self.scanBufferLimit = scanBufferLimit
        self.eventBufferLimit = eventBufferLimit
        self.prepareQueueLimit = prepareQueueLimit
        self.maximumQueuedOperations = maximumQueuedOperations
        self.maximumConnectionsPerCentral = maximumConnectionsPerCentral
        self.rssi = rssi
        self.faults = faults
        self.pairing = pairing
        self.l2cap = l2cap
        self.seed = seed
        self.traceCapacity = traceCapacity
        self.coreBluetooth = coreBluetooth
    }
}

// MARK: - Presets

extension EmulatorConfiguration {
    /// No delays, no noise, no faults: PDUs are delivered in order at once. For unit tests.
    public static var instant: EmulatorConfiguration {
        var configuration = EmulatorConfiguration(timing: .instant)
        configuration.rssi.variation = 0
        return configuration
    }

    /// A realistic link as a current phone makes it: LE 2M, 251-byte data length, a 30 ms
    /// connection interval, 100 ms advertising, a little RSSI noise, no faults.
    public static var `default`: EmulatorConfiguration {
        EmulatorConfiguration()
    }

    /// An older or busier radio: LE 1M, 27-byte data length, a 100 ms connection interval,
    /// 1 s advertising and longer latencies.
    public static var slow: EmulatorConfiguration {
        EmulatorConfiguration(
            scanLatency: .milliseconds(100), connectLatency: .milliseconds(200),
            discoveryLatency: .milliseconds(50), advertisingInterval: .milliseconds(1000),
            dataLength: 27, phy: .le1M, connectionInterval: .milliseconds(100),
            supervisionTimeout: .seconds(4))
    }

    /// `.default` with faults on: 10 % of connection attempts fail, 5 % of reads and writes
    /// get an ATT error, one PDU in 1,000 loses the link; more RSSI noise.
    public static var unreliable: EmulatorConfiguration {
        var configuration = EmulatorConfiguration.default
        configuration.faults = FaultRates(connectionFailure: 0.1, attError: 0.05, linkLoss: 0.001)
        configuration.rssi.variation = 8
        return configuration
    }
}

// MARK: - Validation

extension EmulatorConfiguration {
    /// The smallest ATT MTU (LE).
    public static let minimumMTU = 23
    /// The largest ATT MTU: a 512-byte value plus the 5 bytes of a prepare write header.
    public static let maximumMTU = 517
    /// The shortest connection interval (7.5 ms).
    public static let minimumConnectionInterval: Duration = .microseconds(7500)
    /// The longest connection interval (4 s).
    public static let maximumConnectionInterval: Duration = .seconds(4)

    /// Throws ``/BleuCore/BleuError/invalidState(_:)`` naming the first knob outside its range.
    public func validate() throws(BleuError) {
        if let problem = problems().first {
            throw .invalidState(.invalidConfiguration(setting: problem.setting, requirement: problem.requirement))
        }
    }

    /// The configuration with every knob clamped into its range.
    public func normalized() -> EmulatorConfiguration {
        var c = self
        c.centralMTU = c.centralMTU.clamped(Self.minimumMTU, Self.maximumMTU)
        c.peripheralMTU = c.peripheralMTU.clamped(Self.minimumMTU, Self.maximumMTU)
        c.dataLength = c.dataLength.clamped(AirTime.minimumPayload, AirTime.maximumPayload)
        let unit = 1250 as Int64
        let interval = c.connectionInterval.microsecondsRoundedDown / unit * unit
        c.connectionInterval = .microseconds(interval.clamped(7500, 4_000_000))
        let longest = Duration.microseconds(AirTime.exchangeMicroseconds(payload: c.dataLength, phy: c.phy, encrypted: true))
        if c.connectionInterval < longest {
            c.connectionInterval = .microseconds((longest.microsecondsRoundedDown + unit - 1) / unit * unit)
        }
        if let packets = c.maximumPacketsPerConnectionEvent { c.maximumPacketsPerConnectionEvent = max(1, packets) }
        c.supervisionTimeout = max(.milliseconds(100), min(.seconds(32), c.supervisionTimeout))
        c.attTransactionTimeout = max(.milliseconds(1), c.attTransactionTimeout)
        for latency in [\EmulatorConfiguration.scanLatency, \.connectLatency, \.discoveryLatency] where c[keyPath: latency] < .zero {
            c[keyPath: latency] = .zero
        }
        c.advertisingInterval = max(.milliseconds(20), min(.seconds(10), c.advertisingInterval))
        c.writeWithoutResponseQueueDepth = max(1, c.writeWithoutResponseQueueDepth)
        c.notificationQueueDepth = max(1, c.notificationQueueDepth)
        c.subscriptionBufferLimit = max(1, c.subscriptionBufferLimit)
        c.scanBufferLimit = max(1, c.scanBufferLimit)
        c.eventBufferLimit = max(1, c.eventBufferLimit)
        c.prepareQueueLimit = max(1, c.prepareQueueLimit)
        c.maximumQueuedOperations = max(1, c.maximumQueuedOperations)
        c.maximumConnectionsPerCentral = max(1, c.maximumConnectionsPerCentral)
        c.faults.connectionFailure = c.faults.connectionFailure.clamped(0, 1)
        c.faults.attError = c.faults.attError.clamped(0, 1)
        c.faults.linkLoss = c.faults.linkLoss.clamped(0, 1)
        c.rssi.variation = max(0, c.rssi.variation)
        c.l2cap.mtu = c.l2cap.mtu.clamped(23, 65535)
        c.l2cap.mps = c.l2cap.mps.clamped(23, 65533)
        c.l2cap.initialCredits = c.l2cap.initialCredits.clamped(1, 65535)
        c.traceCapacity = max(0, c.traceCapacity)
        return c
    }

    private func problems() -> [(setting: String, requirement: String)] {
        var problems: [(setting: String, requirement: String)] = []
        func check(_ ok: Bool, _ setting: String, _ requirement: @autoclosure () -> String) {
            if !ok { problems.append((setting, requirement())) }
        }
        check((Self.minimumMTU...Self.maximumMTU).contains(centralMTU), "centralMTU", "\(centralMTU) is outside 23–517")
        check((Self.minimumMTU...Self.maximumMTU).contains(peripheralMTU), "peripheralMTU", "\(peripheralMTU) is outside 23–517")
        check((AirTime.minimumPayload...AirTime.maximumPayload).contains(dataLength), "dataLength", "\(dataLength) is outside 27–251")
        check(connectionInterval >= Self.minimumConnectionInterval && connectionInterval <= Self.maximumConnectionInterval, "connectionInterval", "\(connectionInterval) is outside 7.5 ms–4 s")
        check(connectionInterval.microsecondsRoundedDown % 1250 == 0, "connectionInterval", "\(connectionInterval) is not a multiple of 1.25 ms")
        let longest = AirTime.exchangeMicroseconds(payload: dataLength, phy: phy, encrypted: true)
        check(connectionInterval.microsecondsRoundedDown >= longest, "connectionInterval", "\(connectionInterval) is shorter than one \(dataLength)-byte exchange on \(phy) (\(longest) µs)")
        check((maximumPacketsPerConnectionEvent ?? 1) >= 1, "maximumPacketsPerConnectionEvent", "must be at least 1")
        check(supervisionTimeout >= .milliseconds(100) && supervisionTimeout <= .seconds(32), "supervisionTimeout", "is outside 100 ms–32 s")
        check(attTransactionTimeout > .zero, "attTransactionTimeout", "must be positive")
        check(scanLatency >= .zero && connectLatency >= .zero && discoveryLatency >= .zero, "latencies", "must not be negative")
        check(advertisingInterval >= .milliseconds(20) && advertisingInterval <= .seconds(10), "advertisingInterval", "is outside 20 ms–10 s")
        for (name, value) in [("writeWithoutResponseQueueDepth", writeWithoutResponseQueueDepth),
                              ("notificationQueueDepth", notificationQueueDepth),
                              ("subscriptionBufferLimit", subscriptionBufferLimit), ("scanBufferLimit", scanBufferLimit),
                              ("eventBufferLimit", eventBufferLimit), ("prepareQueueLimit", prepareQueueLimit),
                              ("maximumQueuedOperations", maximumQueuedOperations),
                              ("maximumConnectionsPerCentral", maximumConnectionsPerCentral)] {
            check(value >= 1, "\(name)", "must be at least 1")
        }
        for (name, rate) in [("connectionFailure", faults.connectionFailure), ("attError", faults.attError), ("linkLoss", faults.linkLoss)] {
            check((0...1).contains(rate), "faults.\(name)", "\(rate) is not a probability")
        }
        check(rssi.variation >= 0, "rssi.variation", "must not be negative")
        check((23...65535).contains(l2cap.mtu), "l2cap.mtu", "is outside 23–65535")
        check((23...65533).contains(l2cap.mps), "l2cap.mps", "is outside 23–65533")
        check((1...65535).contains(l2cap.initialCredits), "l2cap.initialCredits", "is outside 1–65535")
        check(traceCapacity >= 0, "traceCapacity", "must not be negative")
        return problems
    }
}

extension Comparable {
    func clamped(_ low: Self, _ high: Self) -> Self {
        Swift.min(Swift.max(self, low), high)
    }
}
