import Foundation

/// Advertising or scan response data: an ordered list of AD structures.
///
/// Build it from fields, encode it within the legacy 31-byte limit (or split it into
/// advertising data and a scan response), and decode what a scanner received:
///
/// ```swift
/// let data = AdvertisingData(flags: .leGeneralDiscoverable, localName: "Thermo",
///                            serviceUUIDs: [BluetoothUUID.Service.healthThermometer])
/// let bytes = try data.encoded()                       // ≤ 31 bytes, or a typed error
/// let back = try AdvertisingData(decoding: bytes)      // the same structures
/// ```
public struct AdvertisingData: Sendable, Hashable {
    /// The legacy advertising and scan response payload limit (Core Spec Vol 6 Part B §2.3.1).
    public static let legacyMaximumLength = 31

    /// The AD structures, in the order they are sent.
    public var structures: [ADStructure]

    public init(_ structures: [ADStructure] = []) {
        self.structures = structures
    }

    /// Builds advertising data from fields. Service UUIDs are grouped into complete lists by
    /// their shortest width (16, 32, then 128 bits); service data uses each UUID's shortest width.
    public init(
        flags: AdvertisingFlags? = nil,
        localName: String? = nil,
        serviceUUIDs: [BluetoothUUID] = [],
        solicitedServiceUUIDs: [BluetoothUUID] = [],
        txPowerLevel: Int8? = nil,
        serviceData: [BluetoothUUID: Data] = [:],
        manufacturerData: ManufacturerData? = nil,
        appearance: UInt16? = nil
    ) {
        var structures: [ADStructure] = []
        if let flags { structures.append(.flags(flags)) }
        for width in BluetoothUUID.Width.allCases {
            let group = serviceUUIDs.filter { $0.shortestWidth == width }
            if !group.isEmpty { structures.append(.serviceUUIDs(group, width: width, complete: true)) }
        }
        for width in BluetoothUUID.Width.allCases {
            let group = solicitedServiceUUIDs.filter { $0.shortestWidth == width }
            if !group.isEmpty { structures.append(.solicitedServiceUUIDs(group, width: width)) }
        }
        if let txPowerLevel { structures.append(.txPowerLevel(txPowerLevel)) }
        if let appearance { structures.append(.appearance(appearance)) }
        for (uuid, data) in serviceData.sorted(by: { $0.key < $1.key }) {
            structures.append(.serviceData(uuid, data, width: uuid.shortestWidth))
        }
        if let manufacturerData { structures.append(.manufacturerData(manufacturerData)) }
        if let localName { structures.append(.localName(localName, complete: true)) }
        self.structures = structures
    }

    /// The structures of this data followed by those of a scan response: what a scanner
    /// reports for one advertiser.
    public func merged(with scanResponse: AdvertisingData) -> AdvertisingData {
        AdvertisingData(structures + scanResponse.structures)
    }
}

// MARK: - Fields

extension AdvertisingData {
    /// The flags, if present.
    public var flags: AdvertisingFlags? {
        structures.lazy.compactMap { if case .flags(let f) = $0 { f } else { nil } }.first
    }

    /// The local name: the complete one if present, otherwise the shortened one.
    public var localName: String? {
        var shortened: String?
        for case .localName(let name, let complete) in structures {
            if complete { return name }
            shortened = shortened ?? name
        }
        return shortened
    }

    /// Every advertised service UUID, from complete and incomplete lists of every width.
    public var serviceUUIDs: [BluetoothUUID] {
        var result: [BluetoothUUID] = []
        for case .serviceUUIDs(let list, _, _) in structures { result += list }
        return result
    }

    /// Every service UUID the advertiser solicits.
    public var solicitedServiceUUIDs: [BluetoothUUID] {
        var result: [BluetoothUUID] = []
        for case .solicitedServiceUUIDs(let list, _) in structures { result += list }
        return result
    }

    /// The TX power level in dBm, if present.
    public var txPowerLevel: Int8? {
        structures.lazy.compactMap { if case .txPowerLevel(let p) = $0 { p } else { nil } }.first
    }

    /// Service data by service UUID (the first entry wins when a UUID repeats).
    public var serviceData: [BluetoothUUID: Data] {
        var result: [BluetoothUUID: Data] = [:]
        for case .serviceData(let uuid, let data, _) in structures where result[uuid] == nil {
            result[uuid] = data
        }
        return result
    }

    /// The first manufacturer specific data, if present.
    public var manufacturerData: ManufacturerData? {
        structures.lazy.compactMap { if case .manufacturerData(let m) = $0 { m } else { nil } }.first
    }

    /// The appearance, if present; `Appearance(value)` splits it into its named category and
    /// subcategory.
    public var appearance: UInt16? {
        structures.lazy.compactMap { if case .appearance(let a) = $0 { a } else { nil } }.first
    }

    /// The peripheral's preferred connection interval range, in units of 1.25 ms.
    public var connectionIntervalRange: (minimum: UInt16, maximum: UInt16)? {
        for case .connectionIntervalRange(let minimum, let maximum) in structures {
            return (minimum, maximum)
        }
        return nil
    }

    /// The iBeacon in the manufacturer data, if the advertiser is one.
    public var iBeacon: IBeacon? {
        for case .manufacturerData(let data) in structures {
            if let beacon = IBeacon(manufacturerData: data) { return beacon }
        }
        return nil
    }
}
