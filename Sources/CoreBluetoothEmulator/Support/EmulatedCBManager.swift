import BleuCore
import Foundation

/// CoreBluetooth's `CBManager`: the base of ``EmulatedCBCentralManager`` and
/// ``EmulatedCBPeripheralManager``, holding the radio's state as the delegate last heard it.
public class EmulatedCBManager {
    private let observedState: Locked<CBManagerState>

    /// `.unknown` until the first state callback, as in CoreBluetooth.
    init(initialState: CBManagerState) {
        observedState = Locked(initialState)
    }

    /// The radio's state. As with CoreBluetooth it is `.unknown` until the first
    /// `…DidUpdateState` callback, which comes soon after init; commands other than reading
    /// it are refused until it is `.poweredOn`.
    public var state: CBManagerState {
        observedState.withLock { $0 }
    }

    /// The application's Bluetooth authorization. The emulator always allows it.
    public class var authorization: CBManagerAuthorization { .allowedAlways }

    /// The same as the class property (CoreBluetooth's deprecated instance form).
    public var authorization: CBManagerAuthorization { Self.authorization }

    /// Records the state the delegate is about to hear (on the callback queue).
    func observe(_ state: ManagerState) {
        observedState.withLock { $0 = CBManagerState(state) }
    }

    /// CoreBluetooth refuses commands while the radio is not powered on ("API MISUSE"),
    /// logging and doing nothing; so does the emulator, on standard error.
    func refuseUnlessPoweredOn(_ command: String) -> Bool {
        let state = self.state
        guard state != .poweredOn else { return false }
        report("API MISUSE: \(type(of: self)) can only accept \(command) while in the powered on state (state is \(state.rawValue))")
        return true
    }

    /// Says on standard error what the emulator refused or dropped, as CoreBluetooth logs it.
    func report(_ problem: String) {
        FileHandle.standardError.write(Data("CoreBluetoothEmulator: \(problem)\n".utf8))
    }
}

/// CoreBluetooth's `CBPeer`: the base of ``EmulatedCBPeripheral`` and ``EmulatedCBCentral``.
public class EmulatedCBPeer {
    /// The identifier under which this device knows the peer: stable for the bus's lifetime,
    /// different on every other device.
    public let identifier: UUID

    init(identifier: UUID) {
        self.identifier = identifier
    }
}
