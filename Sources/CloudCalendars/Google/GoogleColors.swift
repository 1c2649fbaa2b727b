/// Google Calendar's event colours: the `event` palette of `colors.get`
/// (https://developers.google.com/calendar/api/v3/reference/colors), the background of each `colorId`. The palette
/// is global and fixed (Lavender to Tomato), so it is written here instead of being fetched on every run.
enum GoogleColors {
    static let event: [String: String] = [
        "1": "#a4bdfc", "2": "#7ae7bf", "3": "#dbadff", "4": "#ff887c", "5": "#fbd75b", "6": "#ffb878",
        "7": "#46d6db", "8": "#e1e1e1", "9": "#5484ed", "10": "#51b749", "11": "#dc2127",
    ]
}
