import BleuCore

/// The Fitness Machine Service (0x1826), as an indoor bike (smart trainer) hosts it: its
/// features, its training data, the control point a client sets targets through, and the
/// machine's status. (The service's other machine types — treadmill, cross trainer, step climber,
/// stair climber, rower — and its Training Status and Supported Range characteristics are not
/// typed here.)
public enum FitnessMachineService: GATTService {
    /// 0x1826, the Fitness Machine Service.
    public static let uuid = BluetoothUUID.Service.fitnessMachine

    /// Fitness Machine Feature (0x2ACC): read.
    public static let feature = Characteristic<FitnessMachineFeature>(
        BluetoothUUID.Characteristic.fitnessMachineFeature, codec: FitnessMachineFeature.codec, properties: [.read])

    /// Indoor Bike Data (0x2AD2): notify.
    public static let indoorBikeData = Characteristic<IndoorBikeData>(
        BluetoothUUID.Characteristic.indoorBikeData, codec: IndoorBikeData.codec, properties: [.notify])

    /// Fitness Machine Control Point (0x2AD9): write requests, indicate responses. Op codes it
    /// does not type decode to an error answered with ``/BleuCore/ATTError/valueNotAllowed``.
    public static let controlPoint = Characteristic<FitnessMachineControlPoint>(
        BluetoothUUID.Characteristic.fitnessMachineControlPoint, codec: FitnessMachineControlPoint.codec,
        properties: [.write, .indicate])

    /// Fitness Machine Status (0x2ADA): notify.
    public static let status = Characteristic<FitnessMachineStatus>(
        BluetoothUUID.Characteristic.fitnessMachineStatus, codec: FitnessMachineStatus.codec, properties: [.notify])

    /// Fitness Machine Feature, Indoor Bike Data, Fitness Machine Control Point and Fitness
    /// Machine Status.
    public static var characteristics: [CharacteristicDeclaration] {
        feature
        indoorBikeData
        controlPoint
        status
    }
}
