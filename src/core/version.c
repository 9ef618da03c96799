/* The version of the library actually loaded: in core, which every layer
 * may use (the JSON stamp, emitted file headers), rather than in topo. */
#include <gpufeed/gpufeed.h>

GF_API const char *gf_version(void)
{
	return GF_VERSION_STRING;
}
