/// Reading a transform stage's `rules` from its options, every problem reported with its JSON path
/// (`stages[1].rules[0].match.title.regex: invalid regular expression "(": expected ')'`): a rule that cannot be
/// read fails validation, it never quietly matches nothing.
extension TransformRule {
    static let matchKeys = ["title", "location", "description", "categories", "status", "transparency", "source", "calendar",
                            "organizer", "attendee", "weekday", "time_of_day", "duration", "all_day"]
    static let actionKeys = ["remove", "privacy", "title", "location", "description", "color", "categories", "calendar",
                             "transparency", "stop"]
    static let testKeys = ["empty", "equals", "contains", "prefix", "suffix", "regex", "ignore_case", "not"]
    static let editKeys = ["set", "replace", "regex", "with", "ignore_case", "prefix", "suffix"]
    static let weekdayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    static let fullWeekdayNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// The rules of `options["rules"]`, in order; nil when any of them has a problem (each reported).
    static func rules(_ options: PluginOptions) -> [TransformRule]? {
        guard let value = options.value("rules") else { return nil }
        guard case .array(let items) = value else {
            options.report("rules", "expected an array of rules, each an object with \"match\" and actions, got \(value.kindDescription) \(value.preview)")
            return nil
        }
        if items.isEmpty { options.report("rules", "expected at least one rule") }
        var rules: [TransformRule] = []
        var failed = false
        for (i, item) in items.enumerated() {
            let path = options.keyPath("rules") + "[\(i)]"
            guard case .object(let object) = item else {
                options.diagnostics.add(path, "expected a rule object with \"match\" and actions, got \(item.kindDescription) \(item.preview)")
                failed = true
                continue
            }
            let before = options.diagnostics.issues.count
            let rule = TransformRule.read(PluginOptions(path: path, object: object, environment: options.environment, diagnostics: options.diagnostics))
            if options.diagnostics.issues.count > before { failed = true } else { rules.append(rule) }
        }
        return failed || items.isEmpty ? nil : rules
    }

    /// One rule; its problems go to the options' diagnostics.
    static func read(_ o: PluginOptions) -> TransformRule {
        rejectUnknown(o, ["match"] + actionKeys)
        var match = EventMatch()
        if let m = o.nested("match") { match = readMatch(m) }
        var actions = RuleActions()
        actions.remove = o.bool("remove", default: false)
        actions.privacyBusy = o.choice("privacy", ["busy"], default: "") == "busy"
        actions.title = textEdit(o, "title")
        actions.location = textEdit(o, "location")
        actions.description = textEdit(o, "description")
        actions.color = o.color("color")
        actions.categories = o.stringArray("categories")
        actions.calendar = o.string("calendar")
        if o.contains("transparency") { actions.transparency = o.choice("transparency", ["opaque", "transparent"], default: "opaque").uppercased() }
        actions.stop = o.bool("stop", default: false)
        let others = actionKeys.filter { $0 != "remove" && o.object[$0] != nil }
        if actions.remove, !others.isEmpty {
            o.diagnostics.add(o.path, "\"remove\" cannot be combined with other actions (\(others.joined(separator: ", "))): a removed event is not changed")
        } else if !actionKeys.contains(where: { o.object[$0] != nil }) {
            o.diagnostics.add(o.path, "a rule needs at least one action (\(actionKeys.joined(separator: ", ")))")
        }
        return TransformRule(match: match, actions: actions)
    }

    /// Unknown keys of a rule's object, with the closest known one; `type` is not a key of these objects.
    static func rejectUnknown(_ o: PluginOptions, _ known: [String]) {
        o.rejectUnknownKeys(known)
        if o.object["type"] != nil {
            o.report("type", "unknown key (expected one of: \(known.joined(separator: ", ")))")
        }
    }

    static func readMatch(_ m: PluginOptions) -> EventMatch {
        rejectUnknown(m, matchKeys)
        var match = EventMatch()
        match.title = textTest(m, "title")
        match.location = textTest(m, "location")
        match.description = textTest(m, "description")
        match.categories = textTest(m, "categories")
        match.status = textTest(m, "status")
        match.transparency = textTest(m, "transparency")
        match.source = textTest(m, "source")
        match.calendar = textTest(m, "calendar")
        match.organizer = textTest(m, "organizer")
        match.attendee = textTest(m, "attendee")
        match.weekdays = weekdays(m)
        if let t = m.nested("time_of_day") {
            rejectUnknown(t, ["from", "to"])
            if t.object["from"] == nil && t.object["to"] == nil { m.report("time_of_day", "expected \"from\", \"to\" or both (\"HH:MM\")") }
            let from = clock(t, "from") ?? 0
            let to = clock(t, "to") ?? 86_400
            match.timeOfDay = TimeOfDayRange(from: from, to: to)
        }
        if let d = m.nested("duration") {
            rejectUnknown(d, ["min", "max"])
            if d.object["min"] == nil && d.object["max"] == nil { m.report("duration", "expected \"min\", \"max\" or both (\"30m\", \"2h\", \"1d\")") }
            match.minDuration = seconds(d, "min")
            match.maxDuration = seconds(d, "max")
        }
        if m.contains("all_day") { match.allDay = m.bool("all_day", default: false) }
        return match
    }

    /// A string test: a plain string (equals, ignoring case) or an object of tests.
    static func textTest(_ m: PluginOptions, _ key: String) -> TextTest? {
        guard let value = m.value(key) else { return nil }
        switch value {
        case .string(let s):
            return TextTest(equals: s.lowercased(), ignoreCase: true)
        case .object(let object):
            let t = PluginOptions(path: m.keyPath(key), object: object, environment: m.environment, diagnostics: m.diagnostics)
            rejectUnknown(t, testKeys)
            let ignoreCase = t.bool("ignore_case", default: false)
            var test = TextTest(ignoreCase: ignoreCase)
            let fold: (String?) -> String? = { text in ignoreCase ? text?.lowercased() : text }
            if t.contains("empty") { test.empty = t.bool("empty", default: true) }
            test.equals = fold(t.string("equals"))
            test.contains = fold(t.string("contains"))
            test.prefix = fold(t.string("prefix"))
            test.suffix = fold(t.string("suffix"))
            test.regex = regex(t, "regex", ignoreCase: test.ignoreCase)
            if let not = textTest(t, "not") { test.negated = [not] }
            if !testKeys.contains(where: { $0 != "ignore_case" && object[$0] != nil }) {
                m.report(key, "expected at least one test (\(testKeys.filter { $0 != "ignore_case" }.joined(separator: ", ")))")
            }
            return test
        default:
            m.report(key, "expected a text (equal to it, ignoring case) or an object of tests (\(testKeys.joined(separator: ", "))), got \(value.kindDescription) \(value.preview)")
            return nil
        }
    }

    /// A text change: a plain string (`set`) or an object of parts.
    static func textEdit(_ o: PluginOptions, _ key: String) -> TextEdit? {
        guard let value = o.value(key) else { return nil }
        switch value {
        case .string(let s):
            return TextEdit(set: s)
        case .object(let object):
            let e = PluginOptions(path: o.keyPath(key), object: object, environment: o.environment, diagnostics: o.diagnostics)
            rejectUnknown(e, editKeys)
            var edit = TextEdit()
            edit.set = e.string("set")
            edit.prefix = e.string("prefix")
            edit.suffix = e.string("suffix")
            let with = e.string("with")
            let replace = e.string("replace")
            let pattern = regex(e, "regex", ignoreCase: e.bool("ignore_case", default: false))
            if let replace { edit.replace = (replace, with ?? "") }
            if let pattern, let with {
                let (parts, problem) = TextEdit.template(with)
                if let problem { e.report("with", problem) } else { edit.regex = (pattern, parts) }
            }
            if (replace != nil || object["regex"] != nil) && object["with"] == nil {
                e.report("with", "missing: \"\(replace != nil ? "replace" : "regex")\" needs the text that replaces what it finds (\"with\": \"\" removes it)")
            } else if object["with"] != nil && replace != nil && object["regex"] != nil {
                e.report("with", "give \"replace\" or \"regex\", not both: \"with\" belongs to one of them")
            } else if object["with"] != nil && replace == nil && object["regex"] == nil {
                e.report("with", "\"with\" replaces what \"replace\" or \"regex\" finds; give one of them")
            }
            if !["set", "replace", "regex", "prefix", "suffix"].contains(where: { object[$0] != nil }) {
                o.report(key, "expected at least one change (set, replace, regex, prefix, suffix)")
            }
            return edit
        default:
            o.report(key, "expected a text (the new value) or an object of changes (\(editKeys.joined(separator: ", "))), got \(value.kindDescription) \(value.preview)")
            return nil
        }
    }

    /// A regular expression option, compiled now: a pattern that does not compile is reported with why.
    static func regex(_ o: PluginOptions, _ key: String, ignoreCase: Bool) -> Regex<AnyRegexOutput>? {
        guard let pattern = o.string(key) else { return nil }
        do {
            let compiled = try Regex(pattern)
            return ignoreCase ? compiled.ignoresCase() : compiled
        } catch {
            o.report(key, "invalid regular expression \"\(pattern)\": \(error)")
            return nil
        }
    }

    /// `weekday`: a name or a list of names ("mon", "monday", any letter case), as ISO weekdays.
    static func weekdays(_ m: PluginOptions) -> Set<Int>? {
        guard let names = m.stringArray("weekday") else { return nil }
        var days = Set<Int>()
        for (i, name) in names.enumerated() {
            let lower = name.lowercased()
            if let d = weekdayNames.firstIndex(of: lower) ?? fullWeekdayNames.firstIndex(of: lower) {
                days.insert(d + 1)
            } else {
                m.diagnostics.add(m.keyPath("weekday") + (m.value("weekday")?.stringValue == nil ? "[\(i)]" : ""),
                                  "unknown weekday \"\(name)\" (expected one of: \(weekdayNames.joined(separator: ", ")), or the full English name)"
                                  + Suggestion.hint(for: lower, in: weekdayNames + fullWeekdayNames))
            }
        }
        if names.isEmpty { m.report("weekday", "expected at least one weekday (mon, tue, ...)") }
        return days
    }

    /// A text option read by `parse`; one it cannot read is reported as an invalid `what`.
    static func parsed<Value>(_ o: PluginOptions, _ key: String, _ what: String, expected: String, _ parse: (String) -> Value?) -> Value? {
        guard let text = o.string(key) else { return nil }
        guard let value = parse(text) else {
            o.report(key, "invalid \(what) \"\(text)\" (expected \(expected))")
            return nil
        }
        return value
    }

    static func clock(_ t: PluginOptions, _ key: String) -> Int? {
        parsed(t, key, "time", expected: "HH:MM, 24-hour, such as \"09:30\" or \"24:00\"", TimeOfDayRange.seconds)
    }

    static func seconds(_ d: PluginOptions, _ key: String) -> Int64? {
        parsed(d, key, "duration", expected: "a number with a unit: \"30m\", \"2h\", \"1d\"") { DurationOption.seconds($0).map { Int64($0) } }
    }
}
