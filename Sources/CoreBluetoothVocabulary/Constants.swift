// CoreBluetooth's global string constants (dictionary keys), with the string values Apple's
// framework uses, so a dictionary built or read with a literal key behaves as on Apple
// platforms. On Apple platforms CoreBluetooth provides them.
//
// Apple's headers declare these as `NSString * const` without showing the values. Each value
// below comes from public material that shows CoreBluetooth at work: the framework's own code
// (decompiled copies of CoreBluetooth and bluetoothd reading or writing the key), printouts of
// dictionaries the framework delivered, or, for `CBAdvertisementDataOverflowServiceUUIDsKey` and
// `CBConnectPeripheralOptionEnableAutoReconnect` only, applications reading or passing the
// literal string with Apple's CoreBluetooth. The two peripheral manager initialization keys are
// inferred rather than seen: CoreBluetooth's `CBPeripheralManager` itself reads and writes these
// options under the central manager's strings (`kCBInitOptionShowPowerAlert`,
// `kCBInitOptionRestoreIdentifier`), and no peripheral-specific string appears anywhere.
#if !canImport(CoreBluetooth)

// MARK: Central manager initialization options

/// Central manager option: whether the system warns the user when Bluetooth is off as the
/// manager is created. The value is a Boolean `NSNumber`; the default is `true`.
public let CBCentralManagerOptionShowPowerAlertKey: String = "kCBInitOptionShowPowerAlert"

/// Central manager option: the identifier under which the system restores the manager's state.
/// The value is a `String`.
public let CBCentralManagerOptionRestoreIdentifierKey: String = "kCBInitOptionRestoreIdentifier"

// MARK: Central manager scan options

/// Scan option: report every advertisement received, not each peripheral once. The value is a
/// Boolean `NSNumber`.
public let CBCentralManagerScanOptionAllowDuplicatesKey: String = "kCBScanOptionAllowDuplicates"

/// Scan option: also report peripherals that solicit one of these services. The value is
/// `[CBUUID]`.
public let CBCentralManagerScanOptionSolicitedServiceUUIDsKey: String = "kCBScanOptionSolicitedServiceUUIDs"

// MARK: Peripheral connection options

/// Connection option: alert the user when the peripheral connects while the application is
/// suspended. The value is a Boolean `NSNumber`.
public let CBConnectPeripheralOptionNotifyOnConnectionKey: String = "kCBConnectOptionNotifyOnConnection"

/// Connection option: alert the user when the peripheral disconnects while the application is
/// suspended. The value is a Boolean `NSNumber`.
public let CBConnectPeripheralOptionNotifyOnDisconnectionKey: String = "kCBConnectOptionNotifyOnDisconnection"

/// Connection option: alert the user of every notification from the peripheral while the
/// application is suspended. The value is a Boolean `NSNumber`.
public let CBConnectPeripheralOptionNotifyOnNotificationKey: String = "kCBConnectOptionNotifyOnNotification"

/// Connection option: seconds to wait before the connection starts. The value is an `NSNumber`.
public let CBConnectPeripheralOptionStartDelayKey: String = "kCBConnectOptionStartDelay"

/// Connection option: bridge classic Bluetooth connections to the peripheral over LE. The value
/// is a Boolean `NSNumber`.
public let CBConnectPeripheralOptionEnableTransportBridgingKey: String = "kCBConnectOptionEnableTransportBridging"

/// Connection option: require the Apple Notification Center Service for the connection. The
/// value is a Boolean `NSNumber`.
public let CBConnectPeripheralOptionRequiresANCS: String = "kCBConnectOptionRequiresANCS"

/// Connection option: reconnect automatically when the connection is lost. The value is a
/// Boolean `NSNumber`.
public let CBConnectPeripheralOptionEnableAutoReconnect: String = "kCBConnectOptionEnableAutoReconnect"

// MARK: Central manager state restoration

/// Restored central state: the peripherals that were connected or being connected. The value is
/// `[CBPeripheral]`.
public let CBCentralManagerRestoredStatePeripheralsKey: String = "kCBRestoredPeripherals"

/// Restored central state: the services the manager was scanning for. The value is `[CBUUID]`.
public let CBCentralManagerRestoredStateScanServicesKey: String = "kCBRestoredScanServices"

/// Restored central state: the scan options in use. The value is `[String: Any]`.
public let CBCentralManagerRestoredStateScanOptionsKey: String = "kCBRestoredScanOptions"

// MARK: Advertisement data

/// Advertisement data: the peripheral's local name. The value is a `String`.
public let CBAdvertisementDataLocalNameKey: String = "kCBAdvDataLocalName"

/// Advertisement data: the manufacturer specific data, company identifier (little-endian)
/// first. The value is `Data`.
public let CBAdvertisementDataManufacturerDataKey: String = "kCBAdvDataManufacturerData"

/// Advertisement data: service data by service UUID. The value is `[CBUUID: Data]`.
public let CBAdvertisementDataServiceDataKey: String = "kCBAdvDataServiceData"

/// Advertisement data: the advertised service UUIDs. The value is `[CBUUID]`.
public let CBAdvertisementDataServiceUUIDsKey: String = "kCBAdvDataServiceUUIDs"

/// Advertisement data: service UUIDs found in the overflow area of an Apple device's background
/// advertisement. The value is `[CBUUID]`.
public let CBAdvertisementDataOverflowServiceUUIDsKey: String = "kCBAdvDataOverflowServiceUUIDs"

/// Advertisement data: the transmit power level in dBm. The value is an `NSNumber`.
public let CBAdvertisementDataTxPowerLevelKey: String = "kCBAdvDataTxPowerLevel"

/// Advertisement data: whether the advertisement is connectable. The value is a Boolean
/// `NSNumber`.
public let CBAdvertisementDataIsConnectable: String = "kCBAdvDataIsConnectable"

/// Advertisement data: the service UUIDs the peripheral solicits. The value is `[CBUUID]`.
public let CBAdvertisementDataSolicitedServiceUUIDsKey: String = "kCBAdvDataSolicitedServiceUUIDs"

// MARK: Peripheral manager initialization options

/// Peripheral manager option: whether the system warns the user when Bluetooth is off as the
/// manager is created. The value is a Boolean `NSNumber`.
///
/// The same string as ``CBCentralManagerOptionShowPowerAlertKey``: CoreBluetooth's peripheral
/// manager uses that key for this option.
public let CBPeripheralManagerOptionShowPowerAlertKey: String = "kCBInitOptionShowPowerAlert"

/// Peripheral manager option: the identifier under which the system restores the manager's
/// state. The value is a `String`.
///
/// The same string as ``CBCentralManagerOptionRestoreIdentifierKey``: CoreBluetooth's peripheral
/// manager reads its restore identifier under that key.
public let CBPeripheralManagerOptionRestoreIdentifierKey: String = "kCBInitOptionRestoreIdentifier"

// MARK: Peripheral manager state restoration

/// Restored peripheral state: the services that were published. The value is
/// `[CBMutableService]`.
public let CBPeripheralManagerRestoredStateServicesKey: String = "kCBRestoredServices"

/// Restored peripheral state: the advertisement data in use. The value is `[String: Any]`.
public let CBPeripheralManagerRestoredStateAdvertisementDataKey: String = "kCBRestoredAdvertisement"

// MARK: Error domains

/// The domain of ``CBError``.
public let CBErrorDomain: String = "CBErrorDomain"

/// The domain of ``CBATTError``.
public let CBATTErrorDomain: String = "CBATTErrorDomain"

#endif
