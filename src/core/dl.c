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

/* The library as messages show it: with the variable that chose it, so a
 * wrong override is named ("GPUFEED_NVML_LIBRARY=/x.so not found"). */
static void shown_name(const struct gf_dl_lib *lib, int var, char *buf, size_t size)
{
	if (var >= 0)
		snprintf(buf, size, "%s=%s", gf_env_name((enum gf_env_var)var), lib->path);
	else
		snprintf(buf, size, "%s", lib->path);
}

/* The first override variable that is set (its value in *value), or -1. */
static int chosen_override(const struct gf_dl_lib *lib, const char **value)
{
	int vars[2] = { lib->override, lib->override2 };

	for (size_t i = 0; i < 2; i++)
		if (vars[i] >= 0 && (*value = gf_env_str((enum gf_env_var)vars[i])))
			return vars[i];
	*value = NULL;
	return -1;
}

static bool not_found(const char *err)
{
	return !err || strstr(err, "No such file or directory");
}

/* dlopen's own words, except for the common case said plainly. */
static void say_open_failed(struct gf_dl_lib *lib, const char *err, const char *shown)
{
	if (not_found(err))
		snprintf(lib->why, sizeof(lib->why), "%s not found", shown);
	else if (strcmp(shown, lib->path))
		snprintf(lib->why, sizeof(lib->why), "%s: %s", shown, err);
	else
		snprintf(lib->why, sizeof(lib->why), "%s", err);
}

/* The soname is not on the linker's path: the library's own search, and
 * where it looked when it found nothing ("libnccl.so.2 not found
 * (GPUFEED_NCCL_LIBRARY, NCCL_LIBRARY unset; not on the linker's path; no
 * PyTorch NCCL under ...)"). */
static void *open_searched(struct gf_dl_lib *lib)
{
	char path[sizeof(lib->path)], looked[sizeof(lib->why)], unset[128] = "";
	void *handle;

	if (lib->search(path, sizeof(path), looked, sizeof(looked))) {
		if (lib->override >= 0)
			snprintf(unset, sizeof(unset), "%s%s%s unset; ", gf_env_name((enum gf_env_var)lib->override),
				 lib->override2 >= 0 ? ", " : "",
				 lib->override2 >= 0 ? gf_env_name((enum gf_env_var)lib->override2) : "");
		snprintf(lib->why, sizeof(lib->why), "%s not found (%snot on the linker's path; %s)", lib->soname,
			 unset, looked);
		return NULL;
	}
	gf_strlcpy(lib->path, path, sizeof(lib->path));
	dlerror();
	handle = dlopen(lib->path, RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		say_open_failed(lib, dlerror(), lib->path);
	return handle;
}

static int fill_table(struct gf_dl_lib *lib, const char *shown)
{
	for (size_t i = 0; i < lib->nsyms; i++) {
		const struct gf_dl_sym *s = &lib->syms[i];
		void *p = lookup(lib->handle, s->name);

		if (!p)
			p = lookup(lib->handle, s->fallback);
		if (!p && s->required) {
			snprintf(lib->why, sizeof(lib->why), "%s lacks %s%s%s%s", shown, s->name,
				 lib->hint ? " (" : "", lib->hint ? lib->hint : "", lib->hint ? ")" : "");
			return -ENOSYS;
		}
		memcpy((char *)lib->table + s->offset, &p, sizeof(p));
	}
	return 0;
}

static int open_and_resolve(struct gf_dl_lib *lib)
{
	const char *over;
	int var = chosen_override(lib, &over);
	char shown[sizeof(lib->path) + 64];

	gf_strlcpy(lib->path, over ? over : lib->soname, sizeof(lib->path));
	lib->why[0] = '\0';
	dlerror();
	lib->handle = dlopen(lib->path, RTLD_NOW | RTLD_LOCAL);
	if (!lib->handle) {
		const char *err = dlerror();

		if (!over && lib->search && not_found(err))
			lib->handle = open_searched(lib);
		else {
			shown_name(lib, var, shown, sizeof(shown));
			say_open_failed(lib, err, shown);
		}
		if (!lib->handle)
			return -ENOSYS;
	}
	shown_name(lib, var, shown, sizeof(shown));
	if (fill_table(lib, shown)) {
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
