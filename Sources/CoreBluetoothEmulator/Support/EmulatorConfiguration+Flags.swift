import BleuCore
import BleuEmulator

/// The CoreBluetoothEmulator package's configuration flags, on Bleu's configuration, so a
/// ported set-up compiles unchanged. Most map onto the link model's own knobs; some are always
/// on because the link model does the real thing — setting those has no effect, as each says.
extension EmulatorConfiguration {
    /// Always on: a scan honours `CBCentralManagerScanOptionAllowDuplicatesKey` (setting it has no effect).
    public var honorAllowDuplicatesOption: Bool {
        get { true }
        set {}
    }

    /// Always on: a scan honours `CBCentralManagerScanOptionSolicitedServiceUUIDsKey` (setting it has no effect).
    public var honorSolicitedServiceUUIDs: Bool {
        get { true }
        set {}
    }

    /// Whether discovered advertisements without a TX power level get one (``/BleuEmulator/CoreBluetoothOptions/autoGenerateAdvertisementFields``);
    /// `CBAdvertisementDataIsConnectable` is always reported.
    public var autoGenerateAdvertisementFields: Bool {
        get { coreBluetooth.autoGenerateAdvertisementFields }
        set { coreBluetooth.autoGenerateAdvertisementFields = newValue }
    }

    /// Whether registered centrals hear connection events (``/BleuEmulator/CoreBluetoothOptions/fireConnectionEvents``).
    public var fireConnectionEvents: Bool {
        get { coreBluetooth.fireConnectionEvents }
        set { coreBluetooth.fireConnectionEvents = newValue }
    }

    /// Always on: writes without response and notifications are flow-controlled by the link.
    /// Setting it to `false` lifts the queue depths to 1,024 (a bound is kept: memory stays bounded).
    public var simulateBackpressure: Bool {
        get { true }
        set {
            guard !newValue else { return }
            writeWithoutResponseQueueDepth = max(writeWithoutResponseQueueDepth, 1024)
            notificationQueueDepth = max(notificationQueueDepth, 1024)
        }
    }

    /// How many writes without response may wait on a link (``/BleuEmulator/EmulatorConfiguration/writeWithoutResponseQueueDepth``).
    public var maxWriteWithoutResponseQueue: Int {
        get { writeWithoutResponseQueueDepth }
        set { writeWithoutResponseQueueDepth = newValue }
    }

    /// How many notifications a peripheral may have queued (``/BleuEmulator/EmulatorConfiguration/notificationQueueDepth``).
    public var maxNotificationQueue: Int {
        get { notificationQueueDepth }
        set { notificationQueueDepth = newValue }
    }

    /// Whether connection attempts fail at `connectionFailureRate`; `false` sets the rate to 0.
    public var simulateConnectionFailure: Bool {
        get { faults.connectionFailure > 0 }
        set { if !newValue { faults.connectionFailure = 0 } }
    }

    /// The share of connection attempts that fail (``/BleuEmulator/FaultRates/connectionFailure``), by the bus's seed.
    public var connectionFailureRate: Double {
        get { faults.connectionFailure }
        set { faults.connectionFailure = newValue }
    }

    /// Whether reads and writes fail at `readWriteErrorRate`; `false` sets the rate to 0.
    public var simulateReadWriteErrors: Bool {
        get { faults.attError > 0 }
        set { if !newValue { faults.attError = 0 } }
    }

    /// The share of application reads and writes answered with an ATT error (``/BleuEmulator/FaultRates/attError``).
    public var readWriteErrorRate: Double {
        get { faults.attError }
        set { faults.attError = newValue }
    }

    /// Whether access to an attribute that needs encryption pairs first (Just Works by default,
    /// see ``/BleuEmulator/EmulatorConfiguration/pairing``); `false` refuses it with Insufficient Encryption.
    public var simulatePairing: Bool {
        get { pairing.pairsOnInsufficientSecurity }
        set { pairing.pairsOnInsufficientSecurity = newValue }
    }

    /// Whether managers honour the restore-identifier option (``/BleuEmulator/CoreBluetoothOptions/stateRestorationEnabled``).
    public var stateRestorationEnabled: Bool {
        get { coreBluetooth.stateRestorationEnabled }
        set { coreBluetooth.stateRestorationEnabled = newValue }
    }

    /// Whether L2CAP channels are offered (``/BleuEmulator/CoreBluetoothOptions/l2capSupported``).
    public var l2capSupported: Bool {
        get { coreBluetooth.l2capSupported }
        set { coreBluetooth.l2capSupported = newValue }
    }

    /// Whether central delegates hear ANCS authorization changes (``/BleuEmulator/CoreBluetoothOptions/fireANCSAuthorizationUpdates``).
    public var fireANCSAuthorizationUpdates: Bool {
        get { coreBluetooth.fireANCSAuthorizationUpdates }
        set { coreBluetooth.fireANCSAuthorizationUpdates = newValue }
    }
}
