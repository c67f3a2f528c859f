/// Glucose Measurement Context (0x2A34): what surrounded the Glucose Measurement with the same
/// sequence number. GATT Specification Supplement, "Glucose Measurement Context":
///
/// | field | size | flags bit |
/// |---|---|---|
/// | Flags | uint8 | always |
/// | Sequence Number | uint16 | always |
/// | Extended Flags | uint8, all reserved | 7 |
/// | Carbohydrate ID, Carbohydrate | uint8, SFLOAT (kg) | 0 |
/// | Meal | uint8 | 1 |
/// | Tester-Health | uint8: Tester in bits 0–3, Health in bits 4–7 | 2 |
/// | Exercise Duration, Exercise Intensity | uint16 (s), uint8 (%) | 3 |
/// | Medication ID, Medication | uint8, SFLOAT (kg, or L when flags bit 5 is set) | 4 |
/// | HbA1c | SFLOAT (%) | 6 |
///
/// The Extended Flags byte, whose bits are all reserved, is skipped when read and never
/// written. Flags bit 5 (the medication unit) is ignored when read without a medication.
public struct GlucoseMeasurementContext: GATTStructure, Hashable {
    /// Carbohydrate intake (flags bit 0).
    public struct Carbohydrate: Sendable, Hashable {
        /// Which meal it was (Carbohydrate ID).
        public var id: CarbohydrateID
        /// How much, in kilograms (1 g is 1e-3 kg).
        public var kilograms: MedFloat16

        /// An intake.
        public init(_ id: CarbohydrateID, kilograms: MedFloat16) {
            self.id = id
            self.kilograms = kilograms
        }
    }

    /// Who tested and how the user was (flags bit 2).
    public struct TesterHealth: Sendable, Hashable {
        /// Who took the sample (the low nibble).
        public var tester: GlucoseTester
        /// The user's health (the high nibble).
        public var health: GlucoseHealth

        /// Both nibbles.
        public init(tester: GlucoseTester, health: GlucoseHealth) {
            self.tester = tester
            self.health = health
        }
    }

    /// Exercise before the measurement (flags bit 3).
    public struct Exercise: Sendable, Hashable {
        /// How long, in seconds; ``overrun`` (0xFFFF) for longer than that.
        public var duration: UInt16
        /// How hard, in percent.
        public var intensity: UInt8

        /// The Exercise Duration that means "overrun".
        public static let overrun: UInt16 = 0xFFFF

        /// An exercise.
        public init(duration: UInt16, intensity: UInt8) {
            self.duration = duration
            self.intensity = intensity
        }
    }

    /// Medication taken (flags bit 4).
    public struct Medication: Sendable, Hashable {
        /// The medication (Medication ID).
        public var id: MedicationID
        /// How much, in ``unit`` (1 mg is 1e-6 kg, 1 mL is 1e-3 L).
        public var amount: MedFloat16
        /// Kilograms or litres (flags bit 5).
        public var unit: Unit

        /// The unit of ``amount``.
        public enum Unit: Sendable, Hashable {
            /// Kilograms (flags bit 5 clear).
            case kilograms
            /// Litres (flags bit 5 set).
            case litres
        }

        /// A medication.
        public init(_ id: MedicationID, amount: MedFloat16, unit: Unit) {
            self.id = id
            self.amount = amount
            self.unit = unit
        }
    }

    /// The sequence number of the Glucose Measurement this context belongs to.
    public var sequenceNumber: UInt16
    /// Carbohydrate intake (flags bit 0).
    public var carbohydrate: Carbohydrate?
    /// When the measurement was taken against a meal (flags bit 1).
    public var meal: GlucoseMeal?
    /// Who tested, and the user's health (flags bit 2).
    public var testerHealth: TesterHealth?
    /// Exercise (flags bit 3).
    public var exercise: Exercise?
    /// Medication (flags bit 4, unit in bit 5).
    public var medication: Medication?
    /// Glycated haemoglobin, in percent (flags bit 6).
    public var hbA1c: MedFloat16?

    /// A context; the flags follow from which fields are given.
    public init(sequenceNumber: UInt16, carbohydrate: Carbohydrate? = nil, meal: GlucoseMeal? = nil,
                testerHealth: TesterHealth? = nil, exercise: Exercise? = nil, medication: Medication? = nil,
                hbA1c: MedFloat16? = nil) {
        self.sequenceNumber = sequenceNumber
        self.carbohydrate = carbohydrate
        self.meal = meal
        self.testerHealth = testerHealth
        self.exercise = exercise
        self.medication = medication
        self.hbA1c = hbA1c
    }

    enum Flag {
        static let carbohydrate: UInt8 = 0x01
        static let meal: UInt8 = 0x02
        static let testerHealth: UInt8 = 0x04
        static let exercise: UInt8 = 0x08
        static let medication: UInt8 = 0x10
        static let litres: UInt8 = 0x20
        static let hbA1c: UInt8 = 0x40
        static let extendedFlags: UInt8 = 0x80
    }

    static let testerBits = PackedEnumeration<GlucoseTester>(shift: 0, width: 4, field: "Tester")
    static let healthBits = PackedEnumeration<GlucoseHealth>(shift: 4, width: 4, field: "Health")

    public init(from reader: inout GATTReader) throws(GATTCodecError) {
        let flags = try reader.decode(.uint8, field: "Flags")
        self.init(sequenceNumber: try reader.decode(.uint16, field: "Sequence Number"))
        if flags & Flag.extendedFlags != 0 { _ = try reader.decode(.uint8, field: "Extended Flags") }
        if flags & Flag.carbohydrate != 0 {
            carbohydrate = Carbohydrate(try reader.decode(.enumeration(CarbohydrateID.self), field: "Carbohydrate ID"),
                                        kilograms: try reader.decode(.medfloat16, field: "Carbohydrate"))
        }
        if flags & Flag.meal != 0 { meal = try reader.decode(.enumeration(GlucoseMeal.self), field: "Meal") }
        if flags & Flag.testerHealth != 0 {
            let raw = try reader.decode(.uint8, field: "Tester-Health")
            do {
                testerHealth = TesterHealth(tester: try Self.testerBits.decode(from: raw), health: try Self.healthBits.decode(from: raw))
            } catch {
                throw error.within("Tester-Health")
            }
        }
        if flags & Flag.exercise != 0 {
            exercise = Exercise(duration: try reader.decode(.uint16, field: "Exercise Duration"),
                                intensity: try reader.decode(.uint8, field: "Exercise Intensity"))
        }
        if flags & Flag.medication != 0 {
            medication = Medication(try reader.decode(.enumeration(MedicationID.self), field: "Medication ID"),
                                    amount: try reader.decode(.medfloat16, field: "Medication"),
                                    unit: flags & Flag.litres != 0 ? .litres : .kilograms)
        }
        if flags & Flag.hbA1c != 0 { hbA1c = try reader.decode(.medfloat16, field: "HbA1c") }
    }

    public func encode(to writer: inout GATTWriter) throws(GATTCodecError) {
        var flags: UInt8 = 0
        if carbohydrate != nil { flags |= Flag.carbohydrate }
        if meal != nil { flags |= Flag.meal }
        if testerHealth != nil { flags |= Flag.testerHealth }
        if exercise != nil { flags |= Flag.exercise }
        if let medication {
            flags |= Flag.medication
            if medication.unit == .litres { flags |= Flag.litres }
        }
        if hbA1c != nil { flags |= Flag.hbA1c }
        writer.writeInteger(flags)
        writer.writeInteger(sequenceNumber)
        if let carbohydrate {
            writer.writeInteger(carbohydrate.id.rawValue)
            try writer.encode(carbohydrate.kilograms, with: .medfloat16, field: "Carbohydrate")
        }
        if let meal { writer.writeInteger(meal.rawValue) }
        if let testerHealth {
            writer.writeInteger(Self.testerBits.bits(of: testerHealth.tester, as: UInt8.self)
                                | Self.healthBits.bits(of: testerHealth.health, as: UInt8.self))
        }
        if let exercise {
            writer.writeInteger(exercise.duration)
            writer.writeInteger(exercise.intensity)
        }
        if let medication {
            writer.writeInteger(medication.id.rawValue)
            try writer.encode(medication.amount, with: .medfloat16, field: "Medication")
        }
        if let hbA1c { try writer.encode(hbA1c, with: .medfloat16, field: "HbA1c") }
    }
}

/// Carbohydrate ID of a Glucose Measurement Context: the meal the carbohydrate came with. 0 and
/// 8–255 are reserved and refused.
public enum CarbohydrateID: UInt8, Sendable, Hashable, CaseIterable {
    /// 1: breakfast.
    case breakfast = 1
    /// 2: lunch.
    case lunch = 2
    /// 3: dinner.
    case dinner = 3
    /// 4: snack.
    case snack = 4
    /// 5: drink.
    case drink = 5
    /// 6: supper.
    case supper = 6
    /// 7: brunch.
    case brunch = 7
}

/// Meal of a Glucose Measurement Context: when the sample was taken. 0 and 6–255 are reserved
/// and refused.
public enum GlucoseMeal: UInt8, Sendable, Hashable, CaseIterable {
    /// 1: preprandial (before a meal).
    case preprandial = 1
    /// 2: postprandial (after a meal).
    case postprandial = 2
    /// 3: fasting.
    case fasting = 3
    /// 4: casual (snacks, drinks…).
    case casual = 4
    /// 5: bedtime.
    case bedtime = 5
}

/// The Tester nibble of a Glucose Measurement Context. 0 and 4–14 are reserved and refused.
public enum GlucoseTester: UInt8, Sendable, Hashable, CaseIterable {
    /// 1: the user.
    case selfTest = 1
    /// 2: a health care professional.
    case healthCareProfessional = 2
    /// 3: a lab test.
    case labTest = 3
    /// 15: tester value not available.
    case notAvailable = 15
}

/// The Health nibble of a Glucose Measurement Context. 0 and 6–14 are reserved and refused.
public enum GlucoseHealth: UInt8, Sendable, Hashable, CaseIterable {
    /// 1: minor health issues.
    case minorHealthIssues = 1
    /// 2: major health issues.
    case majorHealthIssues = 2
    /// 3: during menses.
    case duringMenses = 3
    /// 4: under stress.
    case underStress = 4
    /// 5: no health issues.
    case noHealthIssues = 5
    /// 15: health value not available.
    case notAvailable = 15
}

/// Medication ID of a Glucose Measurement Context. 0 and 6–255 are reserved and refused.
public enum MedicationID: UInt8, Sendable, Hashable, CaseIterable {
    /// 1: rapid-acting insulin.
    case rapidActingInsulin = 1
    /// 2: short-acting insulin.
    case shortActingInsulin = 2
    /// 3: intermediate-acting insulin.
    case intermediateActingInsulin = 3
    /// 4: long-acting insulin.
    case longActingInsulin = 4
    /// 5: pre-mixed insulin.
    case preMixedInsulin = 5
}
