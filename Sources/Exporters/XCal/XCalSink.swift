import Pipeline

/// `type: xcal`: writes an xCal (RFC 6321) document with the same content the `ics` sink writes (every event
/// walked by `ICalEventWriter` into typed properties, rendered straight into XML), VTIMEZONEs first.
/// `expand: true` writes one VEVENT per occurrence. Deterministic and atomic; `"path": "-"` is stdout.
package final class XCalSink: ICalOutputSink {
    package static let descriptor = SinkDescriptor(
        type: "xcal",
        kind: .sink,
        summary: "Write an xCal (RFC 6321, iCalendar in XML) file, atomically",
        options: ICalOutputOptions.self,
        fileExtensions: ["xcs", "xcal", "xml"],
        make: { options, context in
            XCalSink(path: options.path.resolved, expand: options.expand, label: options.path.label, head: options.head(in: context.environment),
                     windowed: context.environment.window != nil)
        }
    )

    let output: ICalExportOutput

    init(path: String, expand: Bool, label: String?, head: ICalCalendarHead, windowed: Bool = false) {
        output = ICalExportOutput(path: path, expand: expand, format: .xcal, head: head, windowed: windowed)
        writtenPath = label ?? path
    }

    /// A sink with the calendar head a pipeline named `calendarName` gets (no NAME when nil).
    package convenience init(path: String, expand: Bool = false, label: String? = nil, calendarName: String? = nil) {
        self.init(path: path, expand: expand, label: label, head: ICalCalendarHead(name: calendarName))
    }

    let writtenPath: String
}
