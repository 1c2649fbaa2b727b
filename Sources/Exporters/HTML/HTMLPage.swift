import Pipeline

/// The whole page, rendered once the run's entries are in: head and stylesheet, the header with the legend of
/// sources, the calendar strip, one `<section>` per day of the agenda, the footer.
struct HTMLPage {
    let settings: HTMLSink.Settings
    let layout: HTMLLayout
    let days: HTMLDayCollector
    let locale: AgendaLocale
    let zone: Zone
    /// UTC seconds.
    let generatedAt: Int64
    /// The sources and their colours, shown under the heading (`HTMLLegend.isShown`).
    var legend = HTMLLegend()

    private var e: (String) -> String { HTMLEscape.text }

    func render() -> String {
        var out = "<!DOCTYPE html>\n<html lang=\"\(e(languageTag))\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<meta name=\"color-scheme\" content=\"light dark\">\n"
        out += "<meta name=\"generator\" content=\"calpipe\">\n"
        out += "<title>\(e(settings.title))</title>\n<style>\n" + HTMLStyle.css(theme: settings.theme) + "</style>\n</head>\n<body>\n"
        out += HTMLWeatherIcons.definitions + "\n"
        out += "<div class=\"page\">\n<header class=\"top\"><h1>\(e(settings.title))</h1>"
        out += "<p class=\"sub\">\(e(rangeText)) · \(e(zone.identifier))</p>" + legendList() + "</header>\n"
        out += "<div class=\"layout\">\n"
        out += strip()
        out += "<main class=\"agenda\" aria-label=\"Agenda\">\n"
        for n in layout.agendaDays { out += daySection(n) }
        out += "</main>\n</div>\n"
        out += footer()
        out += "</div>\n"
        out += "</body>\n</html>\n"
        return out
    }

    /// The legend: each source's name beside its colour's dot (the dot is decoration: the name is the text).
    func legendList() -> String {
        guard legend.isShown else { return "" }
        var out = "<ul class=\"legend\" aria-label=\"Calendars\">"
        for item in legend.items {
            out += "<li" + (item.color.map { " style=\"--c:\($0)\"" } ?? "") + "><span class=\"swatch\" aria-hidden=\"true\"></span>"
            out += e(item.shownName) + "</li>"
        }
        return out + "</ul>"
    }

    /// "en", "de", "fr-CH" for the page's `lang`.
    var languageTag: String {
        let tag = String(settings.locale.map { $0 == "_" ? "-" : $0 }.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        return tag.isEmpty ? "en" : tag
    }

    /// "12 October – 22 November 2026".
    var rangeText: String {
        let first = CivilDate(daysSinceEpoch: layout.agendaDays.lowerBound)
        let last = CivilDate(daysSinceEpoch: layout.agendaDays.upperBound - 1)
        if first.year == last.year {
            return locale.dayAndMonth(first) + " – " + locale.dayAndMonth(last) + " " + String(last.year)
        }
        return locale.dayAndMonth(first) + " " + String(first.year) + " – " + locale.dayAndMonth(last) + " " + String(last.year)
    }

    func dayID(_ day: CivilDate) -> String { "d-" + day.iso8601 }

    /// The strip: weeks in rows, Monday first; every day of the agenda a link to its section.
    func strip() -> String {
        let first = CivilDate(daysSinceEpoch: layout.stripDays.lowerBound)
        let last = CivilDate(daysSinceEpoch: layout.stripDays.upperBound - 1)
        var out = "<nav class=\"strip-wrap\" aria-label=\"Calendar\">\n<table class=\"strip\">"
        let caption = first.month == last.month && first.year == last.year
            ? locale.monthAndYear(first)
            : locale.monthAndYear(first) + " – " + locale.monthAndYear(last)
        out += "<caption>\(e(caption))</caption>\n<thead><tr>"
        for i in 0..<7 {
            out += "<th scope=\"col\"><abbr title=\"\(e(locale.weekdayNames[i]))\">\(e(locale.weekdayShortNames[i]))</abbr></th>"
        }
        out += "</tr></thead>\n<tbody>\n"
        var n = layout.stripDays.lowerBound
        while n < layout.stripDays.upperBound {
            out += "<tr>"
            for _ in 0..<7 {
                out += stripCell(n)
                n += 1
            }
            out += "</tr>\n"
        }
        out += "</tbody></table>\n</nav>\n"
        return out
    }

    private func stripCell(_ n: Int) -> String {
        let day = CivilDate(daysSinceEpoch: n)
        let count = days.day(n)?.total ?? 0
        var classes = [(day.year * 12 + day.month) % 2 == 0 ? "m0" : "m1"]
        if n == layout.today { classes.append("today") }
        if count > 0 { classes.append("has") }
        let inAgenda = layout.agendaDays.contains(n)
        if !inAgenda { classes.append("out") }
        var inner = ""
        if day.day == 1 || n == layout.stripDays.lowerBound {
            inner += "<span class=\"mn\">\(e(locale.monthShort(day)))</span>"
        }
        inner += "<span class=\"n\">\(day.day)</span><span class=\"dot\"></span>"
        var out = "<td class=\"\(classes.joined(separator: " "))\">"
        if inAgenda {
            let events = count == 0 ? "no events" : count == 1 ? "1 event" : "\(count) events"
            let label = locale.weekday(day) + ", " + locale.dayAndMonth(day) + ", " + events
            out += "<a href=\"#\(dayID(day))\" aria-label=\"\(e(label))\"\(n == layout.today ? " aria-current=\"date\"" : "")>\(inner)</a>"
        } else {
            out += "<span class=\"cell\" aria-hidden=\"true\">\(inner)</span>"
        }
        return out + "</td>"
    }

    func daySection(_ n: Int) -> String {
        let day = CivilDate(daysSinceEpoch: n)
        let id = dayID(day)
        let isToday = n == layout.today
        var out = "<section class=\"day\(isToday ? " is-today" : "")\" id=\"\(id)\" aria-labelledby=\"h-\(id)\">\n"
        out += "<header class=\"day-head\"><h2 id=\"h-\(id)\"><span class=\"wd\">\(e(locale.weekday(day)))</span> "
        out += "<span class=\"dm\">\(e(locale.dayAndMonth(day)))</span>"
        if isToday { out += " <span class=\"badge\">today</span>" }
        out += "</h2>" + weather(forDay: n) + "</header>\n"
        if let bucket = days.day(n), !bucket.entries.isEmpty {
            out += "<ol class=\"entries\">\n"
            for entry in bucket.entries { out += entry.html + "\n" }
            if bucket.total > bucket.entries.count {
                out += "<li class=\"more-entries\">+\(bucket.total - bucket.entries.count) more</li>\n"
            }
            out += "</ol>\n"
        } else {
            out += "<p class=\"empty\">No events</p>\n"
        }
        return out + "</section>\n"
    }

    func weather(forDay n: Int) -> String {
        switch days.weather(forDay: n) {
        case .forecast(let f, _)?:
            let icon = AgendaText.weatherIcon(code: f.weatherCode) ?? "unknown"
            let summary = f.summary ?? "Weather code \(f.weatherCode.map(String.init) ?? "unknown")"
            var out = "<p class=\"wx\"><svg class=\"wxi\" viewBox=\"0 0 24 24\" role=\"img\" aria-label=\"\(e(summary))\">"
            out += "<title>\(e(summary))</title><use href=\"#wx-\(icon)\"/></svg>"
            if f.summary != nil { out += "<span class=\"wxs\" aria-hidden=\"true\">\(e(summary))</span>" }
            if let hi = f.temperatureMax { out += "<span class=\"hi\"><span class=\"sr\">high </span>\(AgendaText.degrees(hi))</span>" }
            if let lo = f.temperatureMin { out += "<span class=\"lo\"><span class=\"sr\">low </span>\(AgendaText.degrees(lo))</span>" }
            return out + "</p>"
        case .missing(let reason)?:
            return reason == "beyond-horizon" ? "<p class=\"wx none\">no forecast yet</p>" : ""
        case nil:
            return ""
        }
    }

    func footer() -> String {
        var providers = Set<String>()
        for n in layout.agendaDays {
            if case .forecast(let f, _)? = days.weather(forDay: n) { providers.insert(f.provider) }
        }
        let credits = Set(providers.compactMap(DailyForecast.attribution(forProvider:))).sorted()
        let local = zone.local(fromUTC: generatedAt)
        let utc = CivilDateTime(secondsSinceEpoch: generatedAt)
        var out = "<footer class=\"foot\"><p>Generated <time datetime=\"\(utc.iso8601)Z\">\(e(locale.dateTime(local)))</time>"
        out += " (\(e(zone.identifier))) by calpipe.</p>"
        for credit in credits { out += "<p class=\"credit\">\(e(credit))</p>" }
        return out + "</footer>\n"
    }
}
