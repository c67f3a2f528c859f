// CoreBluetooth's peripheral-side value types, under CoreBluetooth's names and raw values
// (on Apple platforms CoreBluetooth provides them; see ManagerEnums.swift).
#if !canImport(CoreBluetooth)

/// The connection state of a remote peripheral (CoreBluetooth's `CBPeripheralState`).
public enum CBPeripheralState: Int, Sendable {
    /// Not connected (0).
    case disconnected = 0
    /// A connection is being established (1).
    case connecting = 1
    /// Connected (2).
    case connected = 2
    /// The connection is being closed (3).
    case disconnecting = 3
}

/// How a central writes a characteristic value (CoreBluetooth's `CBCharacteristicWriteType`).
public enum CBCharacteristicWriteType: Int, Sendable {
    /// A write request: the peripheral answers, and the delegate hears of the result (0).
    case withResponse = 0
    /// A write command: no answer and no delegate callback (1).
    case withoutResponse = 1
}

/// An L2CAP Protocol/Service Multiplexer value, which identifies a published L2CAP channel
/// (CoreBluetooth's `CBL2CAPPSM`).
public typealias CBL2CAPPSM = UInt16

#endif
