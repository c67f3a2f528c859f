import BleuCore
import Foundation

/// CoreBluetooth's `CBATTRequest`: a central's read or write of a dynamic characteristic,
/// answered with ``EmulatedCBPeripheralManager/respond(to:withResult:)``.
public class EmulatedCBATTRequest {
    enum Origin {
        case read(ReadRequest)
        /// One write of a batch; the batch is answered through its first request.
        case write(WriteRequests, index: Int)
    }

    /// The central that made the request.
    public let central: EmulatedCBCentral
    /// The characteristic read or written.
    public let characteristic: EmulatedCBCharacteristic
    /// Where in the value the request starts (a long read or write continues past 0).
    public let offset: Int
    /// For a write, the bytes written; for a read, set it to the value from ``offset`` on before responding.
    public var value: Data? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }

    let origin: Origin
    private let stored: Locked<Data?>

    init(central: EmulatedCBCentral, characteristic: EmulatedCBCharacteristic, offset: Int, value: Data?, origin: Origin) {
        self.central = central
        self.characteristic = characteristic
        self.offset = offset
        self.origin = origin
        stored = Locked(value)
    }
}
