// CoreBluetooth's `CBUUID` for platforms without CoreBluetooth (on Apple platforms CoreBluetooth
// provides it). A thin class over BleuCore's `BluetoothUUID`, which does the parsing. Like
// CoreBluetooth's class it remembers the width a UUID was made with: CoreBluetooth prints and
// encodes a UUID given as 4 hex digits in 4, and one given in the 36-character form in 36, even
// when that one is the base-UUID alias of a 16-bit UUID (CoreBluetooth's `CBUUID.m` takes the
// width from the length of the text or data; equality and hashing compare all 128 bits).
#if !canImport(CoreBluetooth)
import BleuCore
import Foundation

/// A Bluetooth UUID of a service, characteristic or descriptor: a 16-, 32- or 128-bit value
/// (CoreBluetooth's `CBUUID`).
///
/// A 16- or 32-bit UUID stands for the 128-bit UUID built on the Bluetooth base UUID
/// `0000xxxx-0000-1000-8000-00805F9B34FB`, and equals it: `CBUUID(string: "180D")` and
/// `CBUUID(string: "0000180D-0000-1000-8000-00805F9B34FB")` are equal and hash alike, so either
/// finds the other's entry in a dictionary. As in CoreBluetooth, each keeps the width it was made
/// with for ``uuidString`` and ``data``: the first prints `"180D"`, the second its 36 characters.
///
/// Like CoreBluetooth's class this one is not `Sendable`: code written against it must also
/// compile against Apple's, which makes no such promise. Instances are immutable.
public final class CBUUID: NSObject, NSCopying {
    /// The value, always held at 128 bits.
    let bluetoothUUID: BluetoothUUID
    /// The width the UUID was made with, which ``uuidString`` and ``data`` keep.
    let width: BluetoothUUID.Width

    init(bluetoothUUID: BluetoothUUID, width: BluetoothUUID.Width) {
        self.bluetoothUUID = bluetoothUUID
        self.width = width
        super.init()
    }

    /// A UUID from its text: 4 hex digits (16-bit, `"180D"`), 8 hex digits (32-bit) or the
    /// 36-character form with dashes (128-bit), optionally after `0x`. Upper or lower case.
    ///
    /// Any other text is a programming error and traps with a message naming the text, where
    /// CoreBluetooth raises an Objective-C exception; check text from outside the program with
    /// BleuCore's `BluetoothUUID(string:)` first (which also takes the 32-digit form without
    /// dashes; this initializer, like CoreBluetooth's, does not).
    public convenience init(string theString: String) {
        guard let (uuid, width) = CBUUID.parse(theString) else {
            preconditionFailure("CBUUID(string:): \"\(theString)\" is not a UUID; "
                + "expected 4 or 8 hex digits, or the 36-character form such as 0000180D-0000-1000-8000-00805F9B34FB")
        }
        self.init(bluetoothUUID: uuid, width: width)
    }

    /// A UUID from its 2, 4 or 16 bytes in big-endian order, as ``data`` gives them.
    ///
    /// Any other length is a programming error and traps, where CoreBluetooth raises an
    /// Objective-C exception.
    public convenience init(data theData: Data) {
        let bigEndian = [UInt8](theData)
        guard let uuid = BluetoothUUID(littleEndianBytes: bigEndian.reversed()),
              let width = BluetoothUUID.Width(rawValue: bigEndian.count) else {
            preconditionFailure("CBUUID(data:): \(bigEndian.count) bytes is not a UUID; expected 2, 4 or 16")
        }
        self.init(bluetoothUUID: uuid, width: width)
    }

    /// A 128-bit UUID.
    public convenience init(nsuuid theUUID: UUID) {
        self.init(bluetoothUUID: BluetoothUUID(uuid: theUUID), width: .bits128)
    }

    /// The UUID as text, upper case, in the width it was made with: 4 hex digits for a 16-bit
    /// UUID (`"180D"`), 8 for a 32-bit one, otherwise the 36-character form.
    public var uuidString: String {
        switch width {
        case .bits16: hex(bluetoothUUID.uuid16!)
        case .bits32: hex(bluetoothUUID.uuid32!)
        case .bits128: bluetoothUUID.uuidString128
        }
    }

    /// The UUID's bytes in big-endian order, in the width it was made with: 2 for a 16-bit UUID,
    /// 4 for a 32-bit one, otherwise 16.
    public var data: Data {
        // A UUID made at a width fits that width.
        Data(bluetoothUUID.littleEndianBytes(width: width)!.reversed())
    }

    /// The same as ``uuidString``. (CoreBluetooth's gives a name instead for some well-known
    /// UUIDs, such as "Heart Rate" for 180D.)
    public override var description: String {
        uuidString
    }

    /// Whether `object` is a `CBUUID` with the same 128-bit value (a short form equals its
    /// 128-bit form).
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CBUUID else { return false }
        return other.bluetoothUUID == bluetoothUUID
    }

    /// A hash of the 128-bit value, consistent with ``isEqual(_:)``.
    public override var hash: Int {
        bluetoothUUID.hashValue
    }

    /// The UUID itself: instances are immutable, so a copy need not be a new object.
    public func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// The UUID and its width for the text forms CoreBluetooth accepts, or `nil`.
    static func parse(_ text: String) -> (BluetoothUUID, BluetoothUUID.Width)? {
        var body = Substring(text)
        if body.hasPrefix("0x") || body.hasPrefix("0X") { body = body.dropFirst(2) }
        let width: BluetoothUUID.Width
        switch body.utf8.count {
        case 4, 8:
            guard body.utf8.allSatisfy({ $0 < 0x80 && Character(Unicode.Scalar($0)).isHexDigit }) else {
                return nil
            }
            width = body.utf8.count == 4 ? .bits16 : .bits32
        case 36:
            width = .bits128 // Foundation's UUID parser, behind BluetoothUUID's, checks the dashes and digits.
        default:
            return nil
        }
        return BluetoothUUID(string: String(body)).map { ($0, width) }
    }
}

#endif
