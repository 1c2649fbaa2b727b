/*
 * What libical reads from a file, in the normalised lines scripts/fuzz-diff compares with calpipe's reading
 * (the fuzz harness's `ics-dump` target prints the same lines for calpipe).
 *
 *   cc -O2 -o /tmp/libical_diff scripts/peers/libical_diff.c $(pkg-config --cflags --libs libical)
 *   /tmp/libical_diff FILE
 *
 * One line per VEVENT of every calendar libical's parser returns, fields separated by tabs:
 *
 *   E  UID  RECURRENCE-ID  DTSTART  RRULE  FIRST-STARTS
 *
 * Times: D20261102 (a date), U1793000000 (an instant: UTC, or a TZID libical resolves through the calendar's
 * VTIMEZONEs or its own zone database), F20261102T100000 (floating), Z?NAME (a TZID libical cannot resolve),
 * - (none). RRULE is libical's text of the rule; FIRST-STARTS the first five starts its iterator gives from
 * DTSTART (comma-separated, "-" without a rule). A VEVENT holding an X-LIC-ERROR (something libical could not
 * read) is printed as `X  UID  the errors` instead: the comparison leaves it out.
 */
#include <libical/ical.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

static char *read_stream(char *s, size_t size, void *d) { return fgets(s, (int)size, (FILE *)d); }

/* Tabs and line ends in a field would break the line format: they become spaces. */
static void field(const char *s) {
    if (!s || !*s) { fputs("-", stdout); return; }
    for (; *s; s++) putchar(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

static icaltimezone *zone_of(icalcomponent *cal, icalproperty *prop, const char **tzid) {
    icalparameter *p = icalproperty_get_first_parameter(prop, ICAL_TZID_PARAMETER);
    *tzid = NULL;
    if (!p) return NULL;
    *tzid = icalparameter_get_tzid(p);
    if (!*tzid) return NULL;
    icaltimezone *z = cal ? icalcomponent_get_timezone(cal, *tzid) : NULL;
    if (!z) z = icaltimezone_get_builtin_timezone(*tzid);
    return z;
}

static void print_time(struct icaltimetype t, icaltimezone *zone, const char *tzid) {
    if (icaltime_is_null_time(t)) { fputs("-", stdout); return; }
    if (t.is_date) { printf("D%04d%02d%02d", t.year, t.month, t.day); return; }
    if (icaltime_is_utc(t)) { printf("U%lld", (long long)icaltime_as_timet_with_zone(t, icaltimezone_get_utc_timezone())); return; }
    if (zone) { printf("U%lld", (long long)icaltime_as_timet_with_zone(t, zone)); return; }
    if (tzid) { fputs("Z?", stdout); field(tzid); return; }
    printf("F%04d%02d%02dT%02d%02d%02d", t.year, t.month, t.day, t.hour, t.minute, t.second);
}

static void event(icalcomponent *cal, icalcomponent *ev) {
    icalproperty *uidp = icalcomponent_get_first_property(ev, ICAL_UID_PROPERTY);
    const char *uid = uidp ? icalproperty_get_uid(uidp) : NULL;
    icalproperty *err = icalcomponent_get_first_property(ev, ICAL_XLICERROR_PROPERTY);
    if (err) {
        fputs("X\t", stdout);
        field(uid);
        for (; err; err = icalcomponent_get_next_property(ev, ICAL_XLICERROR_PROPERTY)) { putchar('\t'); field(icalproperty_get_xlicerror(err)); }
        putchar('\n');
        return;
    }
    fputs("E\t", stdout);
    field(uid);
    putchar('\t');
    const char *tzid;
    icalproperty *rid = icalcomponent_get_first_property(ev, ICAL_RECURRENCEID_PROPERTY);
    if (rid) { icaltimezone *z = zone_of(cal, rid, &tzid); print_time(icalproperty_get_recurrenceid(rid), z, tzid); }
    else fputs("-", stdout);
    putchar('\t');
    icalproperty *ps = icalcomponent_get_first_property(ev, ICAL_DTSTART_PROPERTY);
    struct icaltimetype start = ps ? icalproperty_get_dtstart(ps) : icaltime_null_time();
    icaltimezone *zone = ps ? zone_of(cal, ps, &tzid) : (tzid = NULL, NULL);
    print_time(start, zone, tzid);
    putchar('\t');
    icalproperty *prr = icalcomponent_get_first_property(ev, ICAL_RRULE_PROPERTY);
    if (!prr || !ps || (tzid && !zone)) { fputs(prr ? "?\t-\n" : "-\t-\n", stdout); return; }
    struct icalrecurrencetype rule = icalproperty_get_rrule(prr);
    char *text = icalrecurrencetype_as_string_r(&rule);
    field(text);
    free(text);
    putchar('\t');
    if (zone && !start.is_date) start = icaltime_set_timezone(&start, zone);
    icalrecur_iterator *it = icalrecur_iterator_new(rule, start);
    if (!it) { fputs("?\n", stdout); return; }
    int n = 0;
    for (struct icaltimetype t = icalrecur_iterator_next(it); !icaltime_is_null_time(t) && n < 5; t = icalrecur_iterator_next(it), n++) {
        if (n) putchar(',');
        print_time(t, zone, tzid);
    }
    if (!n) fputs("-", stdout);
    icalrecur_iterator_free(it);
    putchar('\n');
}

static void walk(icalcomponent *cal, icalcomponent *c) {
    if (icalcomponent_isa(c) == ICAL_VCALENDAR_COMPONENT) cal = c;
    if (icalcomponent_isa(c) == ICAL_VEVENT_COMPONENT) { event(cal, c); return; }
    for (icalcomponent *k = icalcomponent_get_first_component(c, ICAL_ANY_COMPONENT); k;
         k = icalcomponent_get_next_component(c, ICAL_ANY_COMPONENT))
        walk(cal, k);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: libical_diff FILE\n"); return 2; }
    icalerror_set_errors_are_fatal(0);
    FILE *f = fopen(argv[1], "rb");
    if (!f) { fprintf(stderr, "libical_diff: cannot open %s\n", argv[1]); return 1; }
    icalparser *parser = icalparser_new();
    icalparser_set_gen_data(parser, f);
    icalcomponent *root;
    int roots = 0;
    /* One root per call: a file with several calendars (or junk between them) gives several. */
    while ((root = icalparser_parse(parser, read_stream)) != NULL && roots < 64) {
        walk(NULL, root);
        icalcomponent_free(root);
        roots++;
        if (feof(f)) break;
    }
    icalparser_free(parser);
    fclose(f);
    return 0;
}
