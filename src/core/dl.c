/* Loading vendor libraries: one dlopen, one symbol table, one message
 * format for every library (see dl.h). */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/dl.h"
#include "core/error.h"
#include "core/strutil.h"

/* dlsym into a table slot without the object/function cast warning. */
static void *lookup(void *handle, const char *name)
{
	return name ? dlsym(handle, name) : NULL;
}

/* dlopen's own words, except for the common case said plainly. */
static void say_open_failed(struct gf_dl_lib *lib)
{
	const char *err = dlerror();

	if (!err || strstr(err, "No such file or directory"))
		snprintf(lib->why, sizeof(lib->why), "%s not found", lib->path);
	else
		snprintf(lib->why, sizeof(lib->why), "%s", err);
}

static int fill_table(struct gf_dl_lib *lib)
{
	for (size_t i = 0; i < lib->nsyms; i++) {
		const struct gf_dl_sym *s = &lib->syms[i];
		void *p = lookup(lib->handle, s->name);

		if (!p)
			p = lookup(lib->handle, s->fallback);
		if (!p && s->required) {
			snprintf(lib->why, sizeof(lib->why), "%s lacks %s%s%s%s", lib->path, s->name,
				 lib->hint ? " (" : "", lib->hint ? lib->hint : "", lib->hint ? ")" : "");
			return -ENOSYS;
		}
		memcpy((char *)lib->table + s->offset, &p, sizeof(p));
	}
	return 0;
}

static int open_and_resolve(struct gf_dl_lib *lib)
{
	const char *over = lib->override >= 0 ? gf_env_str((enum gf_env_var)lib->override) : NULL;

	gf_strlcpy(lib->path, over ? over : lib->soname, sizeof(lib->path));
	lib->why[0] = '\0';
	dlerror();
	lib->handle = dlopen(lib->path, RTLD_NOW | RTLD_LOCAL);
	if (!lib->handle) {
		say_open_failed(lib);
		return -ENOSYS;
	}
	if (fill_table(lib)) {
		/* No half-filled table: a caller sees all symbols or none. */
		for (size_t i = 0; i < lib->nsyms; i++)
			memset((char *)lib->table + lib->syms[i].offset, 0, sizeof(void *));
		dlclose(lib->handle);
		lib->handle = NULL;
		return -ENOSYS;
	}
	return 0;
}

int gf_dl_load(struct gf_dl_lib *lib)
{
	if (!__atomic_load_n(&lib->done, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&lib->lock);
		if (!lib->done) {
			lib->result = open_and_resolve(lib);
			__atomic_store_n(&lib->done, 1, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&lib->lock);
	}
	if (lib->result)
		return gf_error(lib->result, "%s not available: %s", lib->what, lib->why);
	return 0;
}

const char *gf_dl_why(const struct gf_dl_lib *lib)
{
	return __atomic_load_n(&lib->done, __ATOMIC_ACQUIRE) ? lib->why : "";
}

const char *gf_dl_path(const struct gf_dl_lib *lib)
{
	return __atomic_load_n(&lib->done, __ATOMIC_ACQUIRE) ? lib->path : "";
}

void gf_dl_unload(struct gf_dl_lib *lib)
{
	pthread_mutex_lock(&lib->lock);
	if (lib->handle)
		dlclose(lib->handle);
	lib->handle = NULL;
	for (size_t i = 0; i < lib->nsyms; i++)
		memset((char *)lib->table + lib->syms[i].offset, 0, sizeof(void *));
	lib->result = 0;
	lib->path[0] = lib->why[0] = '\0';
	__atomic_store_n(&lib->done, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lib->lock);
}
