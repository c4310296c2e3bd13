#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "util/message.h"
#include "util/xml.h"
#if VEIL_HAVE_LIBXML2
#include <libxml/parser.h>
#include <libxml/xmlerror.h>

static xmlDoc *read_xml(const char *data, size_t size, bool dtd_named, char **why) {
	*why = NULL;
	if (size > INT_MAX) {
		*why = veil_message("XML over %d bytes", INT_MAX);
		return NULL;
	}
	xmlInitParser();
	xmlParserCtxt *ctxt = xmlNewParserCtxt();
	if (ctxt == NULL) {
		return NULL;
	}
	int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING;
#if LIBXML_VERSION >= 21300
	options |= XML_PARSE_NO_XXE;
#endif
	xmlDoc *doc = xmlCtxtReadMemory(ctxt, data, (int)size, NULL, NULL, options);
	if (doc == NULL) {
		const xmlError *error = xmlCtxtGetLastError(ctxt);
		const char *reason = error != NULL && error->message != NULL ? error->message :
			"unknown error";
		*why = veil_message("not well-formed XML (line %d): %.*s",
			error != NULL ? error->line : 0, (int)strcspn(reason, "\n"), reason);
	} else if ((doc->intSubset != NULL && (!dtd_named || doc->intSubset->children != NULL)) ||
			doc->extSubset != NULL) {
		xmlFreeDoc(doc);
		doc = NULL;
		*why = veil_message("XML with a DOCTYPE (veil reads no DTD and no entity)");
	}
	xmlFreeParserCtxt(ctxt);
	return doc;
}

xmlDoc *veil_xml_read(const char *data, size_t size, char **why) {
	return read_xml(data, size, false, why);
}

xmlDoc *veil_xml_read_named_dtd(const char *data, size_t size, char **why) {
	return read_xml(data, size, true, why);
}

#endif
