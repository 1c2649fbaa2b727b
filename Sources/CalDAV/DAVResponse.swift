import Foundation
import CalXML
import Pipeline
import Importers

/// One `<response>` of a multistatus answer read into values: its href, its own status (a sync-collection's
/// removed member, a multiget's missing one), and the properties its successful propstats carry.
struct DAVResponse {
    var href: String
    /// The response's own status code ("404"), when it has one.
    var status: String?
    /// The `<prop>` elements of the propstats whose status is 2xx.
    var props: [XMLElementTree]

    /// A property of a successful propstat.
    func prop(_ name: String, namespace: String) -> XMLElementTree? {
        for prop in props {
            if let found = prop.child(name, namespace: namespace) { return found }
        }
        return nil
    }

    /// A property's trimmed text, nil when absent or empty.
    func text(_ name: String, namespace: String) -> String? {
        guard let text = prop(name, namespace: namespace)?.text.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    /// The href inside a property (`<current-user-principal><href>/u/</href>`).
    func hrefInside(_ name: String, namespace: String) -> String? {
        guard let text = prop(name, namespace: namespace)?.child("href", namespace: DAVNames.dav)?.text.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    var isSuccess: Bool { status.map { $0.hasPrefix("2") } ?? true }

    /// The responses of a small multistatus answer (PROPFIND, sync-collection without calendar data) and its
    /// top-level `<sync-token>`. Large answers with calendar data are streamed (`CalDAVSource.readMultistatus`).
    static func parse(_ body: [UInt8], label: String) throws -> (responses: [DAVResponse], syncToken: String?) {
        let reader = try XMLStreamReader(input: XMLBytesInput(body), label: label)
        guard try reader.nextElement(), reader.localName == "multistatus", reader.namespaceURI == DAVNames.dav else {
            throw CalpipeError("\(label): the server's answer is not a WebDAV multistatus document")
        }
        var responses: [DAVResponse] = []
        var token: String?
        var moved = try reader.read()
        while moved {
            guard reader.kind == .element, reader.namespaceURI == DAVNames.dav, reader.depth == 1 else {
                moved = try reader.read()
                continue
            }
            if reader.localName == "response" {
                let tree = try reader.expand()
                var response = DAVResponse(href: tree.child("href", namespace: DAVNames.dav)?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? "", props: [])
                if let status = tree.child("status", namespace: DAVNames.dav) { response.status = CalDAVSource.code(status.text) }
                for propstat in tree.children("propstat", namespace: DAVNames.dav) {
                    if let status = propstat.child("status", namespace: DAVNames.dav), !CalDAVSource.isSuccess(status.text) { continue }
                    if let prop = propstat.child("prop", namespace: DAVNames.dav) { response.props.append(prop) }
                }
                responses.append(response)
                moved = try reader.skipSubtree()
            } else if reader.localName == "sync-token" {
                token = try reader.expand().text.trimmingCharacters(in: .whitespacesAndNewlines)
                moved = try reader.skipSubtree()
            } else {
                moved = try reader.read()
            }
        }
        return (responses, token)
    }
}
