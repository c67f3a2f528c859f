// CoreBluetooth's scan options dictionary to BleuCore's `ScanOptions`, for the emulated central
// manager (see Conversions.swift for the ground rules: this compiles on every platform).
import BleuCore
import Foundation
#if canImport(CoreBluetooth)
import CoreBluetooth
#endif

/// What `scanForPeripherals(withServices:options:)` asks for.
///
/// `services` becomes the service filter as given (`nil` for every peripheral). Of the options,
/// `CBCentralManagerScanOptionAllowDuplicatesKey` (a Boolean `NSNumber`, a `Bool` or an integer)
/// sets ``ScanOptions/allowDuplicates`` and `CBCentralManagerScanOptionSolicitedServiceUUIDsKey`
/// (`[CBUUID]`) sets ``ScanOptions/solicitedServices``. An option of another type, and any other
/// key, is ignored.
package func scanOptions(services: [CBUUID]?, options: [String: Any]?) -> ScanOptions {
    let allowDuplicates = options?[CBCentralManagerScanOptionAllowDuplicatesKey].flatMap(booleanValue) ?? false
    let solicited = options?[CBCentralManagerScanOptionSolicitedServiceUUIDsKey] as? [CBUUID] ?? []
    return ScanOptions(
        services: services?.map { BluetoothUUID($0) },
        allowDuplicates: allowDuplicates,
        solicitedServices: solicited.map { BluetoothUUID($0) }
    )
}

/// A Boolean given as a `Bool`, an `NSNumber` or a Swift integer (non-zero is `true`).
private func booleanValue(_ value: Any) -> Bool? {
    switch value {
    case let flag as Bool: flag
    case let number as NSNumber: number.boolValue
    case let number as Int: number != 0
    default: nil
    }
}

/// The arguments of `scanForPeripherals(withServices:options:)` that scan for `options` (the
/// inverse of ``scanOptions(services:options:)``): the service filter, and the options
/// `CBCentralManagerScanOptionAllowDuplicatesKey` (a Boolean `NSNumber`, always present) and,
/// when there are any, `CBCentralManagerScanOptionSolicitedServiceUUIDsKey` (`[CBUUID]`).
package func coreBluetoothScanArguments(_ options: ScanOptions) -> (services: [CBUUID]?, options: [String: Any]) {
    var dictionary: [String: Any] = [CBCentralManagerScanOptionAllowDuplicatesKey: NSNumber(value: options.allowDuplicates)]
    if !options.solicitedServices.isEmpty {
        dictionary[CBCentralManagerScanOptionSolicitedServiceUUIDsKey] = options.solicitedServices.map { CBUUID($0) }
    }
    return (options.services?.map { CBUUID($0) }, dictionary)
}
