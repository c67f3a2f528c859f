/// Indoor Bike Data (0x2AD2) of the Fitness Machine Service, GATT Specification Supplement,
/// "Indoor Bike Data":
///
/// | field | size | present |
/// |---|---|---|
/// | Flags | uint16 | always |
/// | Instantaneous Speed | uint16 (1/100 km/h) | when flags bit 0 (More Data) is **clear** |
/// | Average Speed | uint16 (1/100 km/h) | when flags bit 1 is set |
/// | Instantaneous Cadence | uint16 (1/2 per minute) | when flags bit 2 is set |
/// | Average Cadence | uint16 (1/2 per minute) | when flags bit 3 is set |
/// | Total Distance | uint24 (m) | when flags bit 4 is set |
/// | Resistance Level | sint16 (unitless) | when flags bit 5 is set |
/// | Instantaneous Power | sint16 (W) | when flags bit 6 is set |
/// | Average Power | sint16 (W) | when flags bit 7 is set |
/// | Total Energy, Energy Per Hour, Energy Per Minute | uint16, uint16, uint8 (kcal) | when flags bit 8 is set |
/// | Heart Rate | uint8 (bpm) | when flags bit 9 is set |
/// | Metabolic Equivalent | uint8 (1/10 MET) | when flags bit 10 is set |
/// | Elapsed Time | uint16 (s) | when flags bit 11 is set |
/// | Remaining Time | uint16 (s) | when flags bit 12 is set |
///
/// Flags bit 0 is "More Data", inverted: clear means this value carries the Instantaneous
/// Speed; set means it does not, and the machine splits its record over several values. Bits
/// 13–15 are reserved, written 0 and ignored when read.
///
/// The Resistance Level is a `sint16` as the Fitness Machine Service 1.0 and the machines in the
/// field send it; later revisions of the GSS list it as a `uint8`.
public struct IndoorBikeData: GATTStructure, Hashable {
    /// Total Energy, Energy Per Hour and Energy Per Minute, sent together (flags bit 8). The
    /// specification's "data not available" is 0xFFFF (0xFF per minute).
    public struct ExpendedEnergy: Sendable, Hashable {
        /// Energy expended since the start of the session, in kilocalories.
        public var total: UInt16
        /// The rate, in kilocalories per hour.
        public var perHour: UInt16
        /// The rate, in kilocalories per minute.
        public var perMinute: UInt8

        /// Expended energy.
        public init(total: UInt16, perHour: UInt16, perMinute: UInt8) {
            self.total = total
            self.perHour = perHour
            self.perMinute = perMinute
        }
    }

    /// Instantaneous speed, in 1/100 km/h; `nil` sets the More Data bit (flags bit 0).
    public var instantaneousSpeed: UInt16?
    /// Average speed since the session began, in 1/100 km/h (flags bit 1).
    public var averageSpeed: UInt16?
    /// Instantaneous cadence, in 1/2 revolution per minute (flags bit 2).
    public var instantaneousCadence: UInt16?
    /// Average cadence, in 1/2 revolution per minute (flags bit 3).
    public var averageCadence: UInt16?
    /// Distance since the session began, in metres, 0–16777215 (flags bit 4, a uint24).
    public var totalDistance: UInt32?
    /// The resistance level, unitless (flags bit 5).
    public var resistanceLevel: Int16?
    /// Instantaneous power, in watts (flags bit 6).
    public var instantaneousPower: Int16?
    /// Average power, in watts (flags bit 7).
    public var averagePower: Int16?
    /// Expended energy (flags bit 8).
    public var expendedEnergy: ExpendedEnergy?
    /// Heart rate, in beats per minute (flags bit 9).
    public var heartRate: UInt8?
    /// Metabolic equivalent, in 1/10 MET (flags bit 10).
    public var metabolicEquivalent: UInt8?
    /// Time since the session began, in seconds (flags bit 11).
    public var elapsedTime: UInt16?
    /// Time left in the session, in seconds (flags bit 12).
    public var remainingTime: UInt16?

    /// Indoor bike data; the flags follow from which fields are given.
    public init(instantaneousSpeed: UInt16? = nil, averageSpeed: UInt16? = nil, instantaneousCadence: UInt16? = nil,
                averageCadence: UInt16? = nil, totalDistance: UInt32? = nil, resistanceLevel: Int16? = nil,
                instantaneousPower: Int16? = nil, averagePower: Int16? = nil, expendedEnergy: ExpendedEnergy? = nil,
                heartRate: UInt8? = nil, metabolicEquivalent: UInt8? = nil, elapsedTime: UInt16? = nil,
                remainingTime: UInt16? = nil) {
        self.instantaneousSpeed = instantaneousSpeed
        self.averageSpeed = averageSpeed
        self.instantaneousCadence = instantaneousCadence
        self.averageCadence = averageCadence
        self.totalDistance = totalDistance
        self.resistanceLevel = resistanceLevel
        self.instantaneousPower = instantaneousPower
        self.averagePower = averagePower
        self.expendedEnergy = expendedEnergy
        self.heartRate = heartRate
        self.metabolicEquivalent = metabolicEquivalent
        self.elapsedTime = elapsedTime
        self.remainingTime = remainingTime
    }

    /// Whether the More Data bit is set: the Instantaneous Speed is absent.
    public var moreData: Bool { instantaneousSpeed == nil }

    /// The instantaneous speed in km/h.
    public var kilometersPerHour: Double? { instantaneousSpeed.map { Double($0) / 100 } }

    /// The instantaneous cadence in revolutions per minute.
    public var revolutionsPerMinute: Double? { instantaneousCadence.map { Double($0) / 2 } }

    enum Bit {
        static let moreData = 0, averageSpeed = 1, instantaneousCadence = 2, averageCadence = 3, totalDistance = 4
        static let resistanceLevel = 5, instantaneousPower = 6, averagePower = 7, expendedEnergy = 8, heartRate = 9
        static let metabolicEquivalent = 10, elapsedTime = 11, remainingTime = 12
    }

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let flags = try reader.decode(.uint16, field: "Flags")
        func has(_ bit: Int) -> Bool { flags & (1 << bit) != 0 }
        instantaneousSpeed = has(Bit.moreData) ? nil : try reader.decode(.uint16, field: "Instantaneous Speed")
        averageSpeed = has(Bit.averageSpeed) ? try reader.decode(.uint16, field: "Average Speed") : nil
        instantaneousCadence = has(Bit.instantaneousCadence) ? try reader.decode(.uint16, field: "Instantaneous Cadence") : nil
        averageCadence = has(Bit.averageCadence) ? try reader.decode(.uint16, field: "Average Cadence") : nil
        totalDistance = has(Bit.totalDistance) ? try reader.decode(.uint24, field: "Total Distance") : nil
        resistanceLevel = has(Bit.resistanceLevel) ? try reader.decode(.sint16, field: "Resistance Level") : nil
        instantaneousPower = has(Bit.instantaneousPower) ? try reader.decode(.sint16, field: "Instantaneous Power") : nil
        averagePower = has(Bit.averagePower) ? try reader.decode(.sint16, field: "Average Power") : nil
        expendedEnergy = has(Bit.expendedEnergy)
            ? ExpendedEnergy(total: try reader.decode(.uint16, field: "Total Energy"),
                             perHour: try reader.decode(.uint16, field: "Energy Per Hour"),
                             perMinute: try reader.decode(.uint8, field: "Energy Per Minute")) : nil
        heartRate = has(Bit.heartRate) ? try reader.decode(.uint8, field: "Heart Rate") : nil
        metabolicEquivalent = has(Bit.metabolicEquivalent) ? try reader.decode(.uint8, field: "Metabolic Equivalent") : nil
        elapsedTime = has(Bit.elapsedTime) ? try reader.decode(.uint16, field: "Elapsed Time") : nil
        remainingTime = has(Bit.remainingTime) ? try reader.decode(.uint16, field: "Remaining Time") : nil
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        let present: [(Int, Bool)] = [
            (Bit.moreData, instantaneousSpeed == nil), (Bit.averageSpeed, averageSpeed != nil),
            (Bit.instantaneousCadence, instantaneousCadence != nil), (Bit.averageCadence, averageCadence != nil),
            (Bit.totalDistance, totalDistance != nil), (Bit.resistanceLevel, resistanceLevel != nil),
            (Bit.instantaneousPower, instantaneousPower != nil), (Bit.averagePower, averagePower != nil),
            (Bit.expendedEnergy, expendedEnergy != nil), (Bit.heartRate, heartRate != nil),
            (Bit.metabolicEquivalent, metabolicEquivalent != nil), (Bit.elapsedTime, elapsedTime != nil),
            (Bit.remainingTime, remainingTime != nil),
        ]
        writer.writeInteger(present.reduce(UInt16(0)) { $1.1 ? $0 | 1 << $1.0 : $0 })
        for value in [instantaneousSpeed, averageSpeed, instantaneousCadence, averageCadence].compactMap({ $0 }) {
            writer.writeInteger(value)
        }
        if let totalDistance { try writer.encode(totalDistance, with: .uint24, field: "Total Distance") }
        for value in [resistanceLevel, instantaneousPower, averagePower].compactMap({ $0 }) {
            writer.writeInteger(value)
        }
        if let expendedEnergy {
            writer.writeInteger(expendedEnergy.total)
            writer.writeInteger(expendedEnergy.perHour)
            writer.writeInteger(expendedEnergy.perMinute)
        }
        for value in [heartRate, metabolicEquivalent].compactMap({ $0 }) { writer.writeInteger(value) }
        for value in [elapsedTime, remainingTime].compactMap({ $0 }) { writer.writeInteger(value) }
    }
}
