import BleuCore

/// Types services a ``GATTPeripheral`` does not declare, at run time (Blues'
/// `ServiceDataSource`): a connection with ``PeripheralDiscoveryScope/everything`` asks it
/// about each undeclared service, discovers the characteristics of the type it names, and
/// makes the service available as that type with ``DiscoveredServices/typed(_:)``. A service
/// it does not know stays bytes (``UndeclaredService/type`` is `nil`).
public protocol GATTServiceDataSource: Sendable {
    /// The type of the service with this UUID, or `nil` to leave the service as bytes.
    func serviceType(for uuid: BluetoothUUID) -> (any GATTService.Type)?
}

/// The default data source: every service type of BleuGATT's SIG catalogue, by UUID.
public struct SIGServiceDataSource: GATTServiceDataSource {
    /// The catalogue's service types.
    public static let serviceTypes: [any GATTService.Type] = [
        BatteryService.self, DeviceInformationService.self, HeartRateService.self, HealthThermometerService.self,
        CurrentTimeService.self, EnvironmentalSensingService.self,
        ImmediateAlertService.self, LinkLossService.self, TxPowerService.self,
        BloodPressureService.self, WeightScaleService.self, BodyCompositionService.self, PulseOximeterService.self,
        GlucoseService.self,
        CyclingSpeedAndCadenceService.self, RunningSpeedAndCadenceService.self, CyclingPowerService.self,
        FitnessMachineService.self,
    ]

    private static let byUUID: [BluetoothUUID: any GATTService.Type] =
        Dictionary(uniqueKeysWithValues: serviceTypes.map { ($0.uuid, $0) })

    /// The catalogue's data source.
    public init() {}

    public func serviceType(for uuid: BluetoothUUID) -> (any GATTService.Type)? {
        Self.byUUID[uuid]
    }
}

/// A data source that types the services in a list (your own service types, say), and asks
/// `fallback` (the SIG catalogue by default) about the others.
public struct ServiceTypeList: GATTServiceDataSource {
    private let types: [BluetoothUUID: any GATTService.Type]
    private let fallback: (any GATTServiceDataSource)?

    /// Types the services of `types`; others as `fallback` does (`nil`: bytes).
    public init(_ types: [any GATTService.Type], fallback: (any GATTServiceDataSource)? = SIGServiceDataSource()) {
        self.types = Dictionary(types.map { ($0.uuid, $0) }, uniquingKeysWith: { first, _ in first })
        self.fallback = fallback
    }

    public func serviceType(for uuid: BluetoothUUID) -> (any GATTService.Type)? {
        types[uuid] ?? fallback?.serviceType(for: uuid)
    }
}
