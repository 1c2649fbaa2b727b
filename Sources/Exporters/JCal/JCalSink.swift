import Pipeline

/// `type: jcal`: writes a jCal (RFC 7265) document with the same content the `ics` sink writes (every event
/// walked by `ICalEventWriter` into typed properties, rendered straight into JSON), VTIMEZONEs first.
/// `expand: true` writes one VEVENT per occurrence. Deterministic and atomic; `"path": "-"` is stdout.
package final class JCalSink: ICalOutputSink {
    package static let descriptor = SinkDescriptor(
        type: "jcal",
        kind: .sink,
        summary: "Write a jCal (RFC 7265, iCalendar in JSON) file, atomically",
        options: ICalOutputOptions.self,
        fileExtensions: ["jcal"],
        make: { options, context in
            JCalSink(path: options.path.resolved, expand: options.expand, label: options.path.label, head: options.head(in: context.environment),
                     windowed: context.environment.window != nil)
        }
    )

    let output: ICalExportOutput
    let writtenPath: String

    init(path: String, expand: Bool, label: String?, head: ICalCalendarHead, windowed: Bool = false) {
        output = ICalExportOutput(path: path, expand: expand, format: .jcal, head: head, windowed: windowed)
        writtenPath = label ?? path
    }

    /// A sink with the calendar head a pipeline named `calendarName` gets (no NAME when nil).
    package convenience init(path: String, expand: Bool = false, label: String? = nil, calendarName: String? = nil) {
        self.init(path: path, expand: expand, label: label, head: ICalCalendarHead(name: calendarName))
    }

}
