/*
 * A GStreamer plugin for the tests: one element whose class says it is a hardware video decoder
 * ("Codec/Decoder/Video/Hardware"), as VA's, V4L2's and NVDEC's say, for a caps no file has
 * (video/x-veil-test): on GST_PLUGIN_PATH it makes a machine without a GPU look like one whose
 * GStreamer has hardware decoders, and decodebin never plugs it. test-import.py checks where
 * videos play then.
 */
#include <gst/gst.h>

#define PACKAGE "veil-tests"

typedef struct {
	GstElement parent;
} VeilTestHwDec;

typedef struct {
	GstElementClass parent_class;
} VeilTestHwDecClass;

GType veil_test_hw_dec_get_type(void);
G_DEFINE_TYPE(VeilTestHwDec, veil_test_hw_dec, GST_TYPE_ELEMENT)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK,
	GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-veil-test"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC,
	GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw"));

static void veil_test_hw_dec_class_init(VeilTestHwDecClass *klass) {
	GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
	gst_element_class_add_static_pad_template(element_class, &sink_template);
	gst_element_class_add_static_pad_template(element_class, &src_template);
	gst_element_class_set_static_metadata(element_class, "veil test hardware decoder",
		"Codec/Decoder/Video/Hardware", "Decodes nothing: stands for a GPU's decoder",
		"veil");
}

static void veil_test_hw_dec_init(VeilTestHwDec *dec) {
	(void)dec;
}

static gboolean plugin_init(GstPlugin *plugin) {
	return gst_element_register(plugin, "veiltesthwdec", GST_RANK_PRIMARY,
		veil_test_hw_dec_get_type());
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, veiltesthw,
	"A hardware video decoder in name only, for veil's tests", plugin_init, "1", "MIT/X11",
	"veil", "veil")
