import BleuCore
import Foundation

/// Whether the radio advertises — kept so advertising resumes after each connection (a
/// controller stops advertising when one is made) — and the advertising commands, legacy or
/// extended.
struct RadioAdvertiser {
    private(set) var isAdvertising = false

    mutating func started() {
        isAdvertising = true
    }

    /// Advertising is off; returns whether it was on.
    mutating func stopped() -> Bool {
        defer { isAdvertising = false }
        return isAdvertising
    }

    /// The commands that set advertising up (before ``enable(_:extended:)``): connectable and
    /// scannable legacy PDUs every `interval`, with `data` and `scanResponse`. With the extended
    /// commands that is set 0, which takes our random address itself. Throws
    /// ``/BleuCore/BleuError/invalidData(_:)`` when the data does not encode.
    static func setUp(_ data: AdvertisingData, scanResponse: AdvertisingData?, interval: Duration,
                      address: BluetoothAddress, ownAddressType: AddressType, extended: Bool) throws -> [HCICommand] {
        let bytes: Data, response: Data
        do {
            bytes = try data.encoded()
        } catch {
            throw BleuError.invalidData(.advertisingData(error))
        }
        do {
            response = try scanResponse?.encoded() ?? Data()
        } catch {
            throw BleuError.invalidData(.scanResponse(error))
        }
        guard extended else {
            return [
                .leSetAdvertisingParameters(LEAdvertisingParameters(
                    intervalMin: interval, intervalMax: interval, advertisingType: .connectableScannableUndirected,
                    ownAddressType: ownAddressType)),
                .leSetAdvertisingData(Array(bytes)),
                .leSetScanResponseData(Array(response)),
            ]
        }
        // Set 0, legacy ADV_IND PDUs (event properties: connectable, scannable, legacy). The set
        // exists once its parameters are set: only then does it take a random address (a
        // controller answers Unknown Advertising Identifier before, Vol 4 Part E §7.8.52).
        var commands: [HCICommand] = [
            .leSetExtendedAdvertisingParameters(LEExtendedAdvertisingParameters(
                handle: 0, eventProperties: [.connectable, .scannable, .legacy], intervalMin: interval, intervalMax: interval,
                ownAddressType: ownAddressType)),
        ]
        if ownAddressType == .randomDevice { commands.append(setAddress(address)) }
        commands += [
            .leSetExtendedAdvertisingData(LEExtendedAdvertisingData(data: Array(bytes))),
            .leSetExtendedScanResponseData(LEExtendedAdvertisingData(data: Array(response))),
        ]
        return commands
    }

    /// LE Set Advertising Set Random Address for set 0 (extended advertising only).
    static func setAddress(_ address: BluetoothAddress) -> HCICommand {
        .raw(.leSetAdvertisingSetRandomAddress, [0] + address.littleEndianBytes)
    }

    /// LE Set (Extended) Advertising Enable: set 0, or every set when disabling.
    static func enable(_ on: Bool, extended: Bool) -> HCICommand {
        guard extended else { return .leSetAdvertisingEnable(on) }
        return .leSetExtendedAdvertisingEnable(enable: on, sets: on ? [LEAdvertisingSetEnable(handle: 0)] : [])
    }
}
