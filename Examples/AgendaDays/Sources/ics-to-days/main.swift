// Prints the days of a calendar file as calpipe's days document (JSON), the same bytes as
// `calpipe convert FILE -o - --output-format json --shape days --from FROM --to TO --tz ZONE`.
//
//     ics-to-days team.ics [FROM TO [ZONE]]
import CalpipeKit
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first else {
    FileHandle.standardError.write(Data("usage: ics-to-days FILE [FROM TO [ZONE]]\n".utf8))
    exit(2)
}
let rest = Array(arguments.dropFirst())
do {
    let document = try await Calpipe.days(ofFile: path, from: rest.count > 1 ? rest[0] : nil, to: rest.count > 1 ? rest[1] : nil,
                                          timeZone: rest.count > 2 ? rest[2] : nil)
    FileHandle.standardOutput.write(document.jsonData)
} catch {
    FileHandle.standardError.write(Data("ics-to-days: \(error)\n".utf8))
    exit(1)
}
