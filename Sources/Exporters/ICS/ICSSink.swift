import Pipeline

/// `type: ics`: writes an RFC 5545 calendar: the source events as they are (with their recurrence rules,
/// `expand: false`, the default) or one VEVENT per occurrence (`expand: true`, with RECURRENCE-ID).
/// One VTIMEZONE per zone used, generated for the years the events span; unknown properties and VALARMs kept;
/// the calendar's name, refresh interval and colour (RFC 7986) from the options.
/// Deterministic (same input and run time, same bytes) and atomic (temporary file, then rename); `"path": "-"` is stdout.
package final class ICSSink: ICalOutputSink {
    package static let descriptor = SinkDescriptor(
        type: "ics",
        kind: .sink,
        summary: "Write an RFC 5545 iCalendar file (source events or one VEVENT per occurrence), atomically",
        options: ICalOutputOptions.self,
        fileExtensions: ["ics", "ical"],
        make: { options, context in
            ICSSink(path: options.path.resolved, expand: options.expand, label: options.path.label, head: options.head(in: context.environment),
                     windowed: context.environment.window != nil)
        }
    )

    /// PRODID: calpipe with its version.
    package static var productID: String { ICalCalendarHead.productID }

    package let path: String
    package let expand: Bool
    let writtenPath: String
    let output: ICalExportOutput

    init(path: String, expand: Bool, label: String?, head: ICalCalendarHead, windowed: Bool = false) {
        self.path = path
        self.expand = expand
        writtenPath = label ?? path
        output = ICalExportOutput(path: path, expand: expand, format: .ics, head: head, windowed: windowed)
    }

    /// A sink with the calendar head a pipeline named `calendarName` gets (no NAME when nil).
    package convenience init(path: String, expand: Bool = false, label: String? = nil, calendarName: String? = nil) {
        self.init(path: path, expand: expand, label: label, head: ICalCalendarHead(name: calendarName))
    }

}
