import Pipeline

// Every file-reading source fingerprints its inputs the same way (`InputSpecSource`: InputSpec.fingerprint):
// the incremental runs of docs/incremental.md skip a source whose inputs did not change.
extension ICSSource: InputSpecSource {}
extension XCalSource: InputSpecSource {}
extension JCalSource: InputSpecSource {}
extension JSONImporter: InputSpecSource {}
extension CalDAVSource: InputSpecSource {}
extension MappedXMLSource: InputSpecSource {}
