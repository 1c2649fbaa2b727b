import Pipeline

// Every file-reading source fingerprints its inputs the same way (InputSpec.fingerprint): the incremental
// runs of docs/incremental.md skip a source whose inputs did not change.
extension ICSSource: FingerprintableSource {
    package func inputFingerprint(context: RunContext) throws -> String? { try input.fingerprint(context: context) }
    package func inputBytes(context: RunContext) -> Int? { input.resolvedBytes(context: context) }
}

extension XCalSource: FingerprintableSource {
    package func inputFingerprint(context: RunContext) throws -> String? { try input.fingerprint(context: context) }
    package func inputBytes(context: RunContext) -> Int? { input.resolvedBytes(context: context) }
}

extension JCalSource: FingerprintableSource {
    package func inputFingerprint(context: RunContext) throws -> String? { try input.fingerprint(context: context) }
    package func inputBytes(context: RunContext) -> Int? { input.resolvedBytes(context: context) }
}

extension JSONImporter: FingerprintableSource {
    package func inputFingerprint(context: RunContext) throws -> String? { try input.fingerprint(context: context) }
    package func inputBytes(context: RunContext) -> Int? { input.resolvedBytes(context: context) }
}

extension CalDAVSource: FingerprintableSource {
    package func inputFingerprint(context: RunContext) throws -> String? { try input.fingerprint(context: context) }
    package func inputBytes(context: RunContext) -> Int? { input.resolvedBytes(context: context) }
}

extension MappedXMLSource: FingerprintableSource {
    package func inputFingerprint(context: RunContext) throws -> String? { try input.fingerprint(context: context) }
    package func inputBytes(context: RunContext) -> Int? { input.resolvedBytes(context: context) }
}
