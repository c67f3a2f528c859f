import BleuCore

/// How an ``HCIRadio`` uses its controller. Every value has a sensible default for a real
/// controller and for Bumble's virtual ones.
public struct HCIRadioConfiguration: Sendable {
    /// The address this device uses on air.
    public enum OwnAddress: Sendable, Hashable {
        /// The controller's public address (Read BD_ADDR).
        case publicAddress
        /// A static random address (its two top bits are set for you).
        case randomStatic(BluetoothAddress)
    }

    /// The address to advertise, scan and connect with. `nil` (the default) draws a static
    /// random address each time a radio starts, so two hosts on one virtual link never collide
    /// (Bumble's virtual controllers all have the public address 00:00:00:00:00:00), even when
    /// they share a configuration.
    public var ownAddress: OwnAddress?
    /// The Device Name in the GAP service.
    public var deviceName: String
    /// The Appearance in the GAP service.
    public var appearance: UInt16
    /// The ATT MTU offered in an exchange and accepted from a client (23…517).
    public var attMTU: Int
    /// Connection parameters a central asks for (LE Create Connection).
    public var connectionParameters: LEConnectionParameters
    /// Whether scanning, advertising and connecting use the LE extended commands (Core Spec 5.0)
    /// when the controller supports them (LE feature bit 12), or always the legacy ones. One
    /// kind is used throughout, as controllers refuse mixing them. Advertisements stay legacy
    /// PDUs (31 bytes, connectable and scannable) either way, which every central receives.
    public var usesExtendedCommands: ExtendedCommands

    /// See ``usesExtendedCommands``.
    public enum ExtendedCommands: Sendable, Hashable {
        case whenSupported
        case never
    }

    /// How often active scanning starts a scan (sent in 0.625 ms units, 2.5 ms – 10.24 s with
    /// the legacy commands, up to 40.959375 s with the extended ones; rounded and clamped).
    public var scanInterval: Duration
    /// How long each scan lasts, at most ``scanInterval`` (units and range as ``scanInterval``).
    public var scanWindow: Duration
    /// Time between advertising events (sent in 0.625 ms units, 20 ms – 10.24 s; rounded and clamped).
    public var advertisingInterval: Duration
    /// How long a scan holds a scannable advertisement back waiting for its scan response, so
    /// a peripheral is reported once with both merged.
    public var scanResponseWait: Duration
    /// Writes without response a connection holds, not yet sent by the controller, before
    /// ``/BleuCore/CentralManager/canSendWriteWithoutResponse(to:)`` turns false.
    public var writeWithoutResponseQueueDepth: Int
    /// Notifications a connection holds, not yet sent by the controller, before
    /// ``/BleuCore/PeripheralManager/updateValue(_:for:onSubscribedCentrals:)`` returns false.
    public var notificationQueueDepth: Int
    /// Values a subscription stream holds for a slow consumer before it ends with
    /// ``/BleuCore/BleuError/bufferOverflow(_:)``.
    public var valueStreamLimit: Int
    /// The ATT transaction timeout (Vol 3 Part F §3.3.3: 30 s).
    public var attTimeout: Duration
    /// How long an application may take to answer a read or write request before the stack
    /// answers it with Unlikely Error itself (the central would otherwise wait out its 30 s).
    public var requestAnswerTimeout: Duration
    /// Connections (both roles) held at most; a central's connect beyond that throws
    /// ``/BleuCore/BleuError/limitReached(_:)``.
    public var maxConnections: Int
    /// How long a connection update or PHY update may take to complete, once the controller
    /// accepted the command.
    public var linkProcedureTimeout: Duration
    /// Ask the controller for the longest LL data length (LE Set Data Length 251) on each new
    /// connection, when it supports Data Length Extension. Best effort: a refusal or no answer
    /// changes nothing.
    public var requestsDataLengthExtension: Bool
    /// Peers remembered at most (seen in scans or connected); the oldest not connected go first.
    public var maxKnownPeers: Int
    /// LE credit-based channels: the largest SDU we accept, the largest K-frame payload, and the
    /// credits we give the peer (so at most `l2capCredits` K-frames wait for the application).
    public var l2capMTU: Int
    public var l2capMPS: Int
    public var l2capCredits: Int
    /// How this device pairs (both roles): what it can show and enter, whether it bonds, what it
    /// demands of a pairing.
    public var security: SecurityManagerConfiguration
    /// Whether the central pairs (or encrypts with its bond) when a request fails with
    /// Insufficient Authentication or Insufficient Encryption, then sends it once more — what
    /// CoreBluetooth does. When `false` the request fails with that ATT error.
    public var pairsOnInsufficientSecurity: Bool
    /// How long the Security Manager waits for the peer's next PDU before the pairing fails
    /// (Vol 3 Part H §3.4: 30 s). After it expires no pairing runs on that connection again.
    public var smpTimeout: Duration
    /// How long a peer whose pairing failed is refused before it may try again (answered with
    /// Repeated Attempts); doubled after each further failure, up to
    /// ``maximumRepeatedAttemptsDelay``.
    public var repeatedAttemptsDelay: Duration
    /// The longest a peer is held back after failed pairings.
    public var maximumRepeatedAttemptsDelay: Duration
    /// Privacy (Core Spec Vol 3 Part C §10.7): when set, the radio advertises, scans and
    /// connects with resolvable private addresses made from `security.identity`'s IRK, and
    /// takes a new one each interval (the specification recommends 15 minutes,
    /// TGAP(private_addr_int)). Bonded peers resolve each to the identity address the pairing
    /// gave them; anyone else sees an unrelated address each time. `nil` (the default): the
    /// radio keeps ``ownAddress``. Needs `security.identity`: ``HCIRadio/start()`` throws
    /// `invalidConfiguration` without one.
    public var privateAddressInterval: Duration?

    /// A configuration; each parameter sets the property of the same name.
    public init(ownAddress: OwnAddress? = nil, deviceName: String = "Bleu", appearance: UInt16 = 0, attMTU: Int = 517,
                connectionParameters: LEConnectionParameters = LEConnectionParameters(intervalMin: .milliseconds(30),
                                                                                      intervalMax: .milliseconds(50)),
                usesExtendedCommands: ExtendedCommands = .whenSupported,
                scanInterval: Duration = .milliseconds(60), scanWindow: Duration = .milliseconds(30),
                advertisingInterval: Duration = .milliseconds(100),
                scanResponseWait: Duration = .milliseconds(500), writeWithoutResponseQueueDepth: Int = 8,
                notificationQueueDepth: Int = 16, valueStreamLimit: Int = 256, attTimeout: Duration = .seconds(30),
                requestAnswerTimeout: Duration = .seconds(25), linkProcedureTimeout: Duration = .seconds(10),
                maxConnections: Int = 8,
                requestsDataLengthExtension: Bool = true, maxKnownPeers: Int = 1024,
                l2capMTU: Int = 2048, l2capMPS: Int = 247, l2capCredits: Int = 16,
                security: SecurityManagerConfiguration = SecurityManagerConfiguration(), pairsOnInsufficientSecurity: Bool = true,
                smpTimeout: Duration = .seconds(30),
                repeatedAttemptsDelay: Duration = .seconds(2), maximumRepeatedAttemptsDelay: Duration = .seconds(60),
                privateAddressInterval: Duration? = nil) {
        self.ownAddress = ownAddress
        self.deviceName = deviceName
        self.appearance = appearance
        self.attMTU = max(23, min(attMTU, 517))
        self.connectionParameters = connectionParameters
        self.usesExtendedCommands = usesExtendedCommands
        self.scanInterval = scanInterval
        self.scanWindow = scanWindow
        self.advertisingInterval = advertisingInterval
        self.scanResponseWait = scanResponseWait
        self.writeWithoutResponseQueueDepth = max(1, writeWithoutResponseQueueDepth)
        self.notificationQueueDepth = max(1, notificationQueueDepth)
        self.valueStreamLimit = max(1, valueStreamLimit)
        self.attTimeout = attTimeout
        self.requestAnswerTimeout = requestAnswerTimeout
        self.linkProcedureTimeout = linkProcedureTimeout
        self.maxConnections = max(1, maxConnections)
        self.requestsDataLengthExtension = requestsDataLengthExtension
        self.maxKnownPeers = max(16, maxKnownPeers)
        self.l2capMTU = max(23, min(l2capMTU, 65535))
        self.l2capMPS = max(23, min(l2capMPS, 65533))
        self.l2capCredits = max(1, min(l2capCredits, 65535))
        self.security = security
        self.pairsOnInsufficientSecurity = pairsOnInsufficientSecurity
        self.smpTimeout = smpTimeout
        self.repeatedAttemptsDelay = repeatedAttemptsDelay
        self.maximumRepeatedAttemptsDelay = max(repeatedAttemptsDelay, maximumRepeatedAttemptsDelay)
        self.privateAddressInterval = privateAddressInterval
    }
}

extension BluetoothAddress {
    /// A static random address (Core Spec Vol 6 Part B §1.3.2.1): the two most significant bits
    /// set, the rest random and neither all zeros nor all ones.
    public static func randomStatic<G: RandomNumberGenerator>(using generator: inout G) -> BluetoothAddress {
        while true {
            var bytes = (0..<6).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes[0] |= 0xC0
            let rest = bytes[0] & 0x3F
            let low = bytes.dropFirst()
            if (rest == 0 && low.allSatisfy { $0 == 0 }) || (rest == 0x3F && low.allSatisfy { $0 == 0xFF }) { continue }
            return BluetoothAddress(bytes: bytes)
        }
    }

    /// This address as a static random one: the two most significant bits set.
    var asRandomStatic: BluetoothAddress {
        var b = bytes
        b[0] |= 0xC0
        return BluetoothAddress(bytes: b)
    }
}
