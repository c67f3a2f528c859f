import BleuCore
import Foundation

/// CoreBluetooth's `CBCentral`: a remote central as an ``EmulatedCBPeripheralManager`` knows it.
public class EmulatedCBCentral: EmulatedCBPeer {
    private weak var manager: EmulatedCBPeripheralManager?

    init(identifier: UUID, manager: EmulatedCBPeripheralManager) {
        self.manager = manager
        super.init(identifier: identifier)
    }

    /// The longest value one notification or indication to this central carries (ATT MTU − 3);
    /// 20 once it is no longer connected.
    public var maximumUpdateValueLength: Int {
        manager?.core.maximumUpdateValueLengthNow(for: identifier) ?? 20
    }
}
