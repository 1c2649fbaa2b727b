/*
 * libical peer for scripts/bench (issue 8). Debian's libical-dev (3.0.16 on bookworm).
 *
 *   cc -O2 -o .bench/bin/libical_bench scripts/peers/libical_bench.c $(pkg-config --cflags --libs libical)
 *   libical_bench parse  FILE                    -> "events N"
 *   libical_bench expand FILE FROM TO [DUMP]     -> "events N occurrences M"
 *
 * parse: icalparser_parse over a FILE* line generator (libical builds the component tree of the whole
 * calendar), then counts the VEVENTs.
 * expand: the same, then every VEVENT is expanded with icalrecur_iterator over [FROM, TO) (ISO dates, read in
 * UTC: the benchmark pipelines run in UTC) with the window rule calpipe uses (RFC 5545 overlap: start < TO
 * and end > FROM; a zero-length occurrence is in when FROM <= start < TO). EXDATEs remove instances; a
 * RECURRENCE-ID override replaces the instance it names and is counted by its own start and end. Times with
 * a TZID are resolved through the calendar's VTIMEZONEs; dates and floating times are read in UTC. Ends
 * come from DTEND (exact duration, RFC 5545 3.8.5.3) or DURATION, else the RFC defaults (a date lasts one
 * day, a date-time zero). DUMP, when given, receives one line "UID START_UTC END_UTC" per occurrence.
 */
#include <libical/ical.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *read_stream(char *s, size_t size, void *d) { return fgets(s, (int)size, (FILE *)d); }

/* A tiny string set of "UID\x1fSTART" keys for the overridden instances. */
typedef struct { char **slots; size_t cap, used; } KeySet;

static uint64_t hash(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) { h ^= (unsigned char)*s; h *= 1099511628211ULL; }
    return h;
}

static void set_add(KeySet *set, const char *key);

static void set_grow(KeySet *set) {
    KeySet bigger = { calloc(set->cap ? set->cap * 2 : 1024, sizeof(char *)), set->cap ? set->cap * 2 : 1024, 0 };
    for (size_t i = 0; i < set->cap; i++) if (set->slots[i]) { set_add(&bigger, set->slots[i]); free(set->slots[i]); }
    free(set->slots);
    *set = bigger;
}

static void set_add(KeySet *set, const char *key) {
    if ((set->used + 1) * 2 > set->cap) set_grow(set);
    size_t i = hash(key) & (set->cap - 1);
    while (set->slots[i]) { if (!strcmp(set->slots[i], key)) return; i = (i + 1) & (set->cap - 1); }
    set->slots[i] = strdup(key);
    set->used++;
}

static int set_has(const KeySet *set, const char *key) {
    if (!set->cap) return 0;
    size_t i = hash(key) & (set->cap - 1);
    while (set->slots[i]) { if (!strcmp(set->slots[i], key)) return 1; i = (i + 1) & (set->cap - 1); }
    return 0;
}

static void make_key(char *buf, size_t n, const char *uid, time_t t) { snprintf(buf, n, "%s\x1f%lld", uid, (long long)t); }

/* The zone a property's TZID names (through the calendar's VTIMEZONEs), or NULL. */
static icaltimezone *zone_of(icalcomponent *cal, icalproperty *prop) {
    icalparameter *p = icalproperty_get_first_parameter(prop, ICAL_TZID_PARAMETER);
    if (!p) return NULL;
    const char *tzid = icalparameter_get_tzid(p);
    icaltimezone *z = icalcomponent_get_timezone(cal, tzid);
    if (!z) z = icaltimezone_get_builtin_timezone(tzid);
    return z;
}

static struct icaltimetype value_time(icalproperty *prop) {
    return icalvalue_get_datetime(icalproperty_get_value(prop));
}

/* Seconds since the epoch of a local/UTC/date time, reading dates and floating times in UTC. */
static time_t to_utc(struct icaltimetype t, icaltimezone *zone) {
    if (t.is_date || icaltime_is_utc(t) || !zone) return icaltime_as_timet_with_zone(t, icaltimezone_get_utc_timezone());
    return icaltime_as_timet_with_zone(t, zone);
}

static time_t parse_date(const char *iso) {
    char s[16] = { 0 };
    for (size_t i = 0, n = 0; iso[i] && n < 8; i++) if (iso[i] != '-') s[n++] = iso[i];
    struct icaltimetype t = icaltime_from_string(s);
    t.is_date = 1;
    return icaltime_as_timet_with_zone(t, icaltimezone_get_utc_timezone());
}

typedef struct {
    time_t from, to;
    long occurrences;
    FILE *dump;
} Window;

static void take(Window *w, const char *uid, time_t s, time_t e) {
    int in = (e <= s) ? (s >= w->from && s < w->to) : (s < w->to && e > w->from);
    if (!in) return;
    w->occurrences++;
    if (w->dump) fprintf(w->dump, "%s %lld %lld\n", uid, (long long)s, (long long)e);
}

static void expand_event(icalcomponent *cal, icalcomponent *ev, const KeySet *overridden, Window *w) {
    icalproperty *ps = icalcomponent_get_first_property(ev, ICAL_DTSTART_PROPERTY);
    if (!ps) return;
    const char *uid = icalcomponent_get_uid(ev);
    if (!uid) uid = "";
    icaltimezone *zone = zone_of(cal, ps);
    struct icaltimetype start = value_time(ps);
    time_t s0 = to_utc(start, zone);
    time_t length;
    icalproperty *pe = icalcomponent_get_first_property(ev, ICAL_DTEND_PROPERTY);
    icalproperty *pd = icalcomponent_get_first_property(ev, ICAL_DURATION_PROPERTY);
    if (pe) length = to_utc(value_time(pe), zone_of(cal, pe)) - s0;
    else if (pd) length = icaldurationtype_as_int(icalproperty_get_duration(pd));
    else length = start.is_date ? 86400 : 0;

    icalproperty *prr = icalcomponent_get_first_property(ev, ICAL_RRULE_PROPERTY);
    if (icalcomponent_get_first_property(ev, ICAL_RECURRENCEID_PROPERTY) || !prr) {
        take(w, uid, s0, s0 + length);
        return;
    }
    /* EXDATEs as UTC seconds */
    time_t ex[64];
    int nex = 0;
    for (icalproperty *p = icalcomponent_get_first_property(ev, ICAL_EXDATE_PROPERTY); p && nex < 64;
         p = icalcomponent_get_next_property(ev, ICAL_EXDATE_PROPERTY))
        ex[nex++] = to_utc(value_time(p), zone_of(cal, p));

    if (zone && !start.is_date) start = icaltime_set_timezone(&start, zone);
    struct icalrecurrencetype rule = icalproperty_get_rrule(prr);
    icalrecur_iterator *it = icalrecur_iterator_new(rule, start);
    if (!it) { fprintf(stderr, "libical_bench: %s: icalrecur_iterator_new failed\n", uid); return; }
    char key[1024];
    for (struct icaltimetype t = icalrecur_iterator_next(it); !icaltime_is_null_time(t); t = icalrecur_iterator_next(it)) {
        time_t s = to_utc(t, zone);
        if (s >= w->to) break;
        int skip = 0;
        for (int i = 0; i < nex; i++) if (ex[i] == s) skip = 1;
        if (skip) continue;
        make_key(key, sizeof key, uid, s);
        if (set_has(overridden, key)) continue;
        take(w, uid, s, s + length);
    }
    icalrecur_iterator_free(it);
}

static void each_calendar(icalcomponent *root, void (*body)(icalcomponent *cal, void *ctx), void *ctx) {
    if (icalcomponent_isa(root) == ICAL_VCALENDAR_COMPONENT) { body(root, ctx); return; }
    for (icalcomponent *c = icalcomponent_get_first_component(root, ICAL_VCALENDAR_COMPONENT); c;
         c = icalcomponent_get_next_component(root, ICAL_VCALENDAR_COMPONENT))
        body(c, ctx);
}

typedef struct { long events; KeySet overridden; Window window; } Run;

static void count_events(icalcomponent *cal, void *ctx) {
    Run *run = ctx;
    for (icalcomponent *e = icalcomponent_get_first_component(cal, ICAL_VEVENT_COMPONENT); e;
         e = icalcomponent_get_next_component(cal, ICAL_VEVENT_COMPONENT)) {
        run->events++;
        icalproperty *rid = icalcomponent_get_first_property(e, ICAL_RECURRENCEID_PROPERTY);
        if (rid && icalcomponent_get_uid(e)) {
            char key[1024];
            make_key(key, sizeof key, icalcomponent_get_uid(e), to_utc(value_time(rid), zone_of(cal, rid)));
            set_add(&run->overridden, key);
        }
    }
}

static void expand_calendar(icalcomponent *cal, void *ctx) {
    Run *run = ctx;
    for (icalcomponent *e = icalcomponent_get_first_component(cal, ICAL_VEVENT_COMPONENT); e;
         e = icalcomponent_get_next_component(cal, ICAL_VEVENT_COMPONENT))
        expand_event(cal, e, &run->overridden, &run->window);
}

int main(int argc, char **argv) {
    int expand = argc >= 5 && !strcmp(argv[1], "expand");
    if (!(argc == 3 && !strcmp(argv[1], "parse")) && !(expand && argc <= 6)) {
        fprintf(stderr, "usage: libical_bench parse FILE | libical_bench expand FILE FROM TO [DUMP]\n");
        return 2;
    }
    FILE *f = fopen(argv[2], "rb");
    if (!f) { perror(argv[2]); return 1; }
    icalparser *parser = icalparser_new();
    icalparser_set_gen_data(parser, f);
    icalcomponent *root = icalparser_parse(parser, read_stream);
    fclose(f);
    if (!root) { fprintf(stderr, "libical_bench: %s: nothing parsed\n", argv[2]); return 1; }
    Run run = { 0 };
    each_calendar(root, count_events, &run);
    if (!expand) {
        printf("events %ld\n", run.events);
    } else {
        run.window.from = parse_date(argv[3]);
        run.window.to = parse_date(argv[4]);
        if (argc == 6) run.window.dump = fopen(argv[5], "w");
        each_calendar(root, expand_calendar, &run);
        if (run.window.dump) fclose(run.window.dump);
        printf("events %ld occurrences %ld\n", run.events, run.window.occurrences);
    }
    icalcomponent_free(root);
    icalparser_free(parser);
    return 0;
}
