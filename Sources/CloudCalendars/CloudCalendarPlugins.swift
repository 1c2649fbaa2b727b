import Pipeline

/// The sources this module provides, for the standard registry (CalpipeKit): calendars read over the services'
/// own HTTP APIs (issue 26).
package enum CloudCalendarPlugins {
    package static var all: [SourceDescriptor] {
        [GoogleSource.descriptor, GraphSource.descriptor]
    }
}
