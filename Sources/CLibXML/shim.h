#ifndef CALPIPE_CLIBXML_SHIM_H
#define CALPIPE_CLIBXML_SHIM_H
// libxml2's headers pull the system ICU headers when LIBXML_ICU_ENABLED is set; those clash with the ICU
// that Foundation ships. Read the version header first, then switch ICU off before anything else.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlIO.h>
#include <libxml/pattern.h>

// xmlFree is a global function pointer, which Swift 6 treats as shared mutable state; call it through here.
static inline void calpipe_xml_free(void *pointer) { xmlFree(pointer); }
#endif
