/// The fixed L2CAP channels of an LE link (Core Spec Vol 3 Part A §2.1, Table 2.3): every host
/// stack and the emulator's link to HCI hosts name them from here.
public enum FixedL2CAPChannel {
    /// The Attribute Protocol's channel.
    public static let att: UInt16 = 0x0004
    /// The LE signaling channel.
    public static let leSignaling: UInt16 = 0x0005
    /// The Security Manager's channel.
    public static let smp: UInt16 = 0x0006
}
