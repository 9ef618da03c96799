/* The kernel command line for the audit's checks. */
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "audit/audit_internal.h"
#include "audit/cmdline.h"

int audit_cmdline_param(struct gf_audit_ctx *c, const char *key, char *val, size_t size)
{
	char *data = NULL, *save = NULL;
	size_t len, klen = strlen(key);
	int found = 0, ret;

	ret = gf_fs_read(&c->fs, "/proc/cmdline", &data, &len);
	if (ret)
		return ret;
	for (char *tok = strtok_r(data, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(tok, "--"))
			break;	/* the rest is init's */
		if (strncmp(tok, key, klen) || (tok[klen] != '=' && tok[klen] != '\0'))
			continue;
		gf_strlcpy(val, tok[klen] == '=' ? tok + klen + 1 : "", size);
		found = 1;
	}
	free(data);
	return found;
}
