extension ATTError {
    /// What a client can do when a server answers with this code, in a sentence.
    public var remedy: String {
        switch self {
        case .invalidHandle, .attributeNotFound, .databaseOutOfSync:
            return "Discover the peer's services again; its attribute database may have changed."
        case .readNotPermitted, .writeNotPermitted, .requestNotSupported:
            return "Check the characteristic's properties and use an operation it allows."
        case .insufficientAuthentication, .insufficientAuthorization, .insufficientEncryption,
             .encryptionKeySizeTooShort:
            return "Pair (bond) with the peer with the security it requires, then retry."
        case .invalidPDU:
            return "The request was malformed; report it as a bug in the client or the server."
        case .invalidOffset, .attributeNotLong, .invalidAttributeValueLength:
            return "Check the value's length and offset against the characteristic's format."
        case .prepareQueueFull, .insufficientResources, .procedureAlreadyInProgress, .unlikelyError:
            return "Retry later; the server is busy or short of resources."
        case .unsupportedGroupType:
            return "Group by primary or secondary service type only."
        case .valueNotAllowed, .writeRequestRejected, .outOfRange:
            return "Send a value the characteristic accepts (see its valid range and the service specification)."
        case .cccdImproperlyConfigured:
            return "Enable notifications or indications as the profile requires, then retry."
        default:
            return isApplicationError
                ? "See the service's specification for what this application error means."
                : "The code is not defined; check the peer's firmware."
        }
    }
}
