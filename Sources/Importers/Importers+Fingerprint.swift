import Pipeline

// Every file-reading source fingerprints its inputs the same way (InputSpec.fingerprint): the incremental
// runs of docs/incremental.md skip a source whose inputs did not change.
extension ICSSource: FingerprintableSource {
    public func inputFingerprint(context: RunContext) throws -> String? { try input.fingerprint(context: context) }
    public func inputBytes(context: RunContext) -> Int? { input.resolvedBytes(context: context) }
}

extension XCalSource: FingerprintableSource {
    public func inputFingerprint(context: RunContext) throws -> String? { try input.fingerprint(context: context) }
    public func inputBytes(context: RunContext) -> Int? { input.resolvedBytes(context: context) }
}

extension JCalSource: FingerprintableSource {
    public func inputFingerprint(context: RunContext) throws -> String? { try input.fingerprint(context: context) }
    public func inputBytes(context: RunContext) -> Int? { input.resolvedBytes(context: context) }
}

extension JSONImporter: FingerprintableSource {
    public func inputFingerprint(context: RunContext) throws -> String? { try input.fingerprint(context: context) }
    public func inputBytes(context: RunContext) -> Int? { input.resolvedBytes(context: context) }
}

extension CalDAVSource: FingerprintableSource {
    public func inputFingerprint(context: RunContext) throws -> String? { try input.fingerprint(context: context) }
    public func inputBytes(context: RunContext) -> Int? { input.resolvedBytes(context: context) }
}

extension MappedXMLSource: FingerprintableSource {
    public func inputFingerprint(context: RunContext) throws -> String? { try input.fingerprint(context: context) }
    public func inputBytes(context: RunContext) -> Int? { input.resolvedBytes(context: context) }
}
