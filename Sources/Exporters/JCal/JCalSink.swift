import Pipeline

/// `type: jcal`: writes a jCal (RFC 7265) document with the same content the `ics` sink writes (every event
/// walked by `ICalEventWriter` into typed properties, rendered straight into JSON), VTIMEZONEs first.
/// `expand: true` writes one VEVENT per occurrence. Deterministic and atomic; `"path": "-"` is stdout.
package final class JCalSink: ICalOutputSink {
    package static let descriptor = SinkDescriptor(
        type: "jcal",
        kind: .sink,
        summary: "Write a jCal (RFC 7265, iCalendar in JSON) file, atomically",
        options: [
            OptionDoc("path", "path", required: true, "output file, or \"-\" for standard output; relative to the pipeline file"),
            OptionDoc("expand", "boolean", "one VEVENT per occurrence (with RECURRENCE-ID) instead of the source events with their rules", default: "false"),
        ] + ICalCalendarHead.options,
        fileExtensions: ["jcal"],
        make: { options in
            let path = options.path("path", required: true)
            let expand = options.bool("expand", default: false)
            let head = ICalCalendarHead.read(options)
            try options.finish()
            guard let path else { throw CalpipeError.optionsRejected }
            return JCalSink(path: path, expand: expand, label: options.pathLabel("path"), head: head, windowed: options.environment.window != nil)
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
