/*
 * What libical makes of a file (the libical column of docs/formats.md, "What calpipe repairs").
 *
 *   cc -O2 -o /tmp/libical_repairs scripts/peers/libical_repairs.c $(pkg-config --cflags --libs libical)
 *   /tmp/libical_repairs Tests/Fixtures/ics/realworld/*.ics
 *
 * Per file: the VEVENTs libical's parser returns (icalparser_parse over the whole file, every top-level
 * component walked), each with its UID, DTSTART as written, whether it kept an RRULE, DTEND, DURATION, and
 * the X-LIC-ERROR properties libical put in place of what it could not read.
 */
#include <libical/ical.h>
#include <stdio.h>
#include <string.h>

static char *read_stream(char *s, size_t size, void *d) { return fgets(s, (int)size, (FILE *)d); }

static void walk(icalcomponent *c, int *events) {
    if (icalcomponent_isa(c) == ICAL_VEVENT_COMPONENT) {
        (*events)++;
        icalproperty *uid = icalcomponent_get_first_property(c, ICAL_UID_PROPERTY);
        icalproperty *start = icalcomponent_get_first_property(c, ICAL_DTSTART_PROPERTY);
        printf("  VEVENT uid=%s dtstart=%s rrule=%d dtend=%d duration=%d\n", uid ? icalproperty_get_uid(uid) : "-",
               start ? icalproperty_get_value_as_string(start) : "-",
               icalcomponent_count_properties(c, ICAL_RRULE_PROPERTY), icalcomponent_count_properties(c, ICAL_DTEND_PROPERTY),
               icalcomponent_count_properties(c, ICAL_DURATION_PROPERTY));
    }
    for (icalproperty *p = icalcomponent_get_first_property(c, ICAL_XLICERROR_PROPERTY); p;
         p = icalcomponent_get_next_property(c, ICAL_XLICERROR_PROPERTY))
        printf("    X-LIC-ERROR in %s: %s\n", icalcomponent_kind_to_string(icalcomponent_isa(c)), icalproperty_get_xlicerror(p));
    for (icalcomponent *k = icalcomponent_get_first_component(c, ICAL_ANY_COMPONENT); k;
         k = icalcomponent_get_next_component(c, ICAL_ANY_COMPONENT))
        walk(k, events);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) { printf("%s: cannot open\n", argv[i]); continue; }
        icalparser *parser = icalparser_new();
        icalparser_set_gen_data(parser, f);
        int events = 0;
        printf("%s\n", argv[i]);
        /* One root per call: a file with several calendars (or junk between them) gives several. */
        icalcomponent *root;
        int roots = 0;
        while ((root = icalparser_parse(parser, read_stream)) != NULL && roots < 64) {
            walk(root, &events);
            icalcomponent_free(root);
            roots++;
            if (feof(f)) break;
        }
        printf("  events %d\n", events);
        icalparser_free(parser);
        fclose(f);
    }
    return 0;
}
