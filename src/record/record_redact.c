/* record --redact.  The identities are found by where the kernel, NVML and
 * the driver keep them, then replaced everywhere in the finished recording
 * as bytes of the same length: a file's other bytes never move (PCI config
 * space stays config space), and whatever copied an identity elsewhere (an
 * IPoIB node_desc with the host name, a by-id name with a serial, a
 * MIG UUID) is caught by the same pass. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/error.h"
#include "core/strutil.h"
#include "record/record_redact.h"

#define MAX_FILE (64u << 20)	/* a recording's own limit per file */
#define MAX_DEPTH 64

static const char *const kind_names[GF_REDACT_NKINDS] = { "hostname", "mac", "serial", "uuid", "guid" };

int gf_redact_init(struct gf_redact *r)
{
	memset(r, 0, sizeof(*r));
	if (getrandom(&r->key, sizeof(r->key), 0) != (ssize_t)sizeof(r->key))
		return gf_error_errno(-errno, "getrandom (the --redact key)");
	return 0;
}

void gf_redact_fini(struct gf_redact *r)
{
	for (int i = 0; i < r->n; i++) {
		free(r->ids[i].orig);
		free(r->ids[i].pseudo);
	}
	free(r->ids);
	memset(r, 0, sizeof(*r));
}

static bool is_sep(char c)
{
	return c == ':' || c == '-' || c == '.' || c == '_';
}

/* Hex digits and separators only (MACs, GUIDs, UUIDs, many serials). */
static bool hexlike(const char *s)
{
	bool digit = false;

	for (; *s; s++) {
		if (isxdigit((unsigned char)*s))
			digit = true;
		else if (!is_sep(*s))
			return false;
	}
	return digit;
}

static bool identifies_nothing(enum gf_redact_kind kind, const char *v, size_t len)
{
	char first = 0;
	bool same = true;

	if (len < (kind == GF_REDACT_HOSTNAME ? 2u : 4u))
		return true;
	if (!strcmp(v, "localhost") || !strcmp(v, "localhost.localdomain") || !strcmp(v, "(none)"))
		return true;
	for (const char *p = v; *p; p++) {
		if (isspace((unsigned char)*p))
			return true;
		if (is_sep(*p))
			continue;
		if (!first)
			first = (char)tolower((unsigned char)*p);
		else if (tolower((unsigned char)*p) != first)
			same = false;
	}
	return same;	/* 00:00:00:00:00:00, ff:ff:..., 0000 */
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The original's shape with other characters, from the key and the
 * original (lower-cased when matched without case). */
static void make_pseudonym(const struct gf_redact *r, struct gf_redact_id *id, unsigned attempt)
{
	static const char hexd[] = "0123456789abcdef";
	bool letters = false;
	uint64_t s = XXH3_64bits_withSeed(id->orig, id->len, r->key + attempt);

	for (size_t i = 0; i < id->len; i++)
		letters |= isalpha((unsigned char)id->orig[i]);
	for (size_t i = 0; i < id->len; i++) {
		unsigned char c = (unsigned char)id->orig[i];
		unsigned x = (unsigned)(splitmix(&s) >> 33);

		if (id->hex && isxdigit(c) && letters)
			id->pseudo[i] = hexd[x % 16];
		else if (isdigit(c))
			id->pseudo[i] = (char)('0' + x % 10);
		else if (islower(c))
			id->pseudo[i] = (char)('a' + x % 26);
		else if (isupper(c))
			id->pseudo[i] = (char)('A' + x % 26);
		else
			id->pseudo[i] = (char)c;
	}
	id->pseudo[id->len] = '\0';
	if (id->kind == GF_REDACT_MAC && id->len >= 2 && isxdigit((unsigned char)id->pseudo[1])) {
		/* second hex digit of the first octet: locally administered, unicast */
		unsigned lo = (unsigned)(strchr(hexd, tolower((unsigned char)id->pseudo[1])) - hexd);

		id->pseudo[1] = hexd[(lo & ~1u) | 2u];
	}
}

static bool same_text(const struct gf_redact_id *id, const char *p)
{
	return id->hex ? !strncasecmp(p, id->orig, id->len) : !strncmp(p, id->orig, id->len);
}

int gf_redact_add(struct gf_redact *r, enum gf_redact_kind kind, const char *value)
{
	struct gf_redact_id id = { .kind = kind };
	size_t len;

	if (!value)
		return 0;
	while (isspace((unsigned char)*value))
		value++;
	len = strlen(value);
	while (len && isspace((unsigned char)value[len - 1]))
		len--;
	/* GPU-<uuid>, MIG-<uuid>: the bare UUID appears too (nvidia-smi -q). */
	if (kind == GF_REDACT_UUID && len > 4 && (!strncmp(value, "GPU-", 4) || !strncmp(value, "MIG-", 4))) {
		value += 4;
		len -= 4;
	}
	if (!(id.orig = strndup(value, len)))
		return gf_error(-ENOMEM, "out of memory");
	id.len = len;
	id.hex = hexlike(id.orig);
	for (int i = 0; i < r->n; i++)
		if (r->ids[i].len == len && same_text(&r->ids[i], id.orig)) {
			free(id.orig);
			return 0;
		}
	if (identifies_nothing(kind, id.orig, len)) {
		free(id.orig);
		return 0;
	}
	if (r->n == r->cap) {
		int cap = r->cap ? r->cap * 2 : 32;
		struct gf_redact_id *v = realloc(r->ids, (size_t)cap * sizeof(*v));

		if (!v) {
			free(id.orig);
			return gf_error(-ENOMEM, "out of memory");
		}
		r->ids = v;
		r->cap = cap;
	}
	if (!(id.pseudo = malloc(len + 1))) {
		free(id.orig);
		return gf_error(-ENOMEM, "out of memory");
	}
	for (unsigned attempt = 0; attempt < 16; attempt++) {
		make_pseudonym(r, &id, attempt);
		if (strncasecmp(id.pseudo, id.orig, len))
			break;
	}
	r->ids[r->n++] = id;
	r->counts[kind]++;
	return 0;
}

/* ---- walking the recording ---- */

struct walk {
	struct gf_redact *r;
	char path[PATH_MAX];	/* relative to the recording, for messages */
	const char *top;
	int (*file)(struct walk *w, int dirfd, const char *name);
	int (*link)(struct walk *w, int dirfd, const char *name);
	int (*dir)(struct walk *w, int dirfd, const char *name);	/* after its entries */
};

/* A failure on the entry being walked, named as top/path. */
static int walk_error(const struct walk *w, int err)
{
	char what[PATH_MAX + 256];

	snprintf(what, sizeof(what), "%s/%s", w->top, w->path);
	return gf_error_errno(err, what);
}

static int walk_dir(struct walk *w, int fd, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	size_t plen = strlen(w->path);
	int ret = 0;

	if (!d) {
		ret = walk_error(w, -errno);
		close(fd);
		return ret;
	}
	/* Renaming entries while reading the directory could show one twice:
	 * names are collected first. */
	char **names = NULL;
	int n = 0, cap = 0;

	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			char **v = realloc(names, (size_t)(cap = cap ? cap * 2 : 64) * sizeof(*v));

			if (!v) {
				ret = gf_error(-ENOMEM, "out of memory");
				goto out;
			}
			names = v;
		}
		if (!(names[n] = strdup(de->d_name))) {
			ret = gf_error(-ENOMEM, "out of memory");
			goto out;
		}
		n++;
	}
	for (int i = 0; !ret && i < n; i++) {
		struct stat st;

		snprintf(w->path + plen, sizeof(w->path) - plen, "%s%s", plen ? "/" : "", names[i]);
		if (fstatat(dirfd(d), names[i], &st, AT_SYMLINK_NOFOLLOW)) {
			ret = walk_error(w, -errno);
		} else if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd(d), names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (depth >= MAX_DEPTH)
				ret = gf_error(-ELOOP, "%s/%s: deeper than %d levels", w->top, w->path, MAX_DEPTH);
			else if (sub < 0)
				ret = walk_error(w, -errno);
			else
				ret = walk_dir(w, sub, depth + 1);
			if (!ret && w->dir)
				ret = w->dir(w, dirfd(d), names[i]);
		} else if (S_ISREG(st.st_mode)) {
			ret = w->file ? w->file(w, dirfd(d), names[i]) : 0;
		} else if (S_ISLNK(st.st_mode)) {
			ret = w->link ? w->link(w, dirfd(d), names[i]) : 0;
		}
		w->path[plen] = '\0';
	}
out:
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return ret;
}

static int walk(struct walk *w, const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return gf_error_errno(-errno, dir);
	w->top = dir;
	w->path[0] = '\0';
	return walk_dir(w, fd, 0);
}

/* A whole file (at most MAX_FILE), NUL-terminated. */
static int slurp(struct walk *w, int fd, char **data, size_t *len)
{
	struct stat st;
	ssize_t got;

	if (fstat(fd, &st))
		return walk_error(w, -errno);
	if ((unsigned long long)st.st_size > MAX_FILE)
		return gf_error(-EFBIG, "%s/%s: larger than a recording holds", w->top, w->path);
	if (!(*data = malloc((size_t)st.st_size + 1)))
		return gf_error(-ENOMEM, "out of memory");
	got = pread(fd, *data, (size_t)st.st_size, 0);
	if (got != st.st_size) {
		free(*data);
		*data = NULL;
		return walk_error(w, got < 0 ? -errno : -EIO);
	}
	(*data)[got] = '\0';
	*len = (size_t)got;
	return 0;
}

/* ---- finding the identities ---- */

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* A PCI device's config space: the Device Serial Number capability's 8
 * bytes (PCIe base spec 7.9.3; a NIC's is often its MAC as an EUI-64), or
 * 0 when it has none.  Extended capabilities start at 0x100 (only root
 * reads past 64 bytes). */
static size_t dsn_offset(const char *path, const unsigned char *b, size_t len)
{
	size_t at = 0x100;

	if (strcmp(base_of(path), "config") || !gf_starts_with(path, "sys/devices/pci"))
		return 0;
	for (int hops = 0; at >= 0x100 && at + 12 <= len && hops < 512; hops++) {
		uint32_t hdr = (uint32_t)b[at] | (uint32_t)b[at + 1] << 8 | (uint32_t)b[at + 2] << 16 |
			       (uint32_t)b[at + 3] << 24;

		if (hdr == 0 || hdr == 0xffffffffu)
			return 0;
		if ((hdr & 0xffff) == 0x0003)
			return at + 4;
		at = (hdr >> 20) & 0xffc;
	}
	return 0;
}

static bool all_zero(const unsigned char *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

static bool name_in(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

/* Where a file's whole content is one identity, its kind; else -1. */
static int file_kind(const char *path)
{
	static const char *const serials[] = { "serial", "product_serial", "board_serial", "chassis_serial",
					       "board_asset_tag", "chassis_asset_tag", "wwid", "eui", "nguid",
					       "serial_number", NULL };
	static const char *const guids[] = { "node_guid", "sys_image_guid", "port_guid", NULL };
	const char *base = base_of(path);

	if (!strcmp(path, "proc/sys/kernel/hostname") || !strcmp(path, "etc/hostname"))
		return GF_REDACT_HOSTNAME;
	if ((!strcmp(base, "address") || !strcmp(base, "perm_address")) && strstr(path, "/net/"))
		return GF_REDACT_MAC;
	if (name_in(base, serials))
		return GF_REDACT_SERIAL;
	if (!strcmp(base, "product_uuid") || !strcmp(base, "uuid"))
		return GF_REDACT_UUID;
	if (name_in(base, guids) || strstr(path, "/gids/"))
		return GF_REDACT_GUID;
	return -1;
}

/* nvml.json: every "uuid", "cluster_uuid" and "serial", at any depth. */
static int add_json_ids(struct gf_redact *r, json_t *j)
{
	const char *k;
	json_t *v;
	size_t i;
	int ret = 0;

	if (json_is_object(j)) {
		json_object_foreach(j, k, v) {
			if (json_is_string(v) && (!strcmp(k, "uuid") || !strcmp(k, "cluster_uuid")))
				ret = gf_redact_add(r, GF_REDACT_UUID, json_string_value(v));
			else if (json_is_string(v) && !strcmp(k, "serial"))
				ret = gf_redact_add(r, GF_REDACT_SERIAL, json_string_value(v));
			else
				ret = add_json_ids(r, v);
			if (ret)
				return ret;
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			if ((ret = add_json_ids(r, v)))
				return ret;
	}
	return ret;
}

/* /proc/driver/nvidia/gpus/<bdf>/information: "GPU UUID: GPU-...". */
static int add_nvidia_info(struct gf_redact *r, const char *text)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *colon = strchr(p, ':'), *eol = strchr(p, '\n');
		char val[128];
		size_t n;

		if (!gf_starts_with(p, "GPU UUID") || !colon || (eol && colon > eol))
			continue;
		n = (size_t)((eol ? eol : colon + strlen(colon)) - (colon + 1));
		if (n >= sizeof(val))
			continue;
		memcpy(val, colon + 1, n);
		val[n] = '\0';
		return gf_redact_add(r, GF_REDACT_UUID, val);
	}
	return 0;
}

/* /proc/cmdline: root=UUID=..., resume=PARTUUID=...: a file system's UUID
 * names the disk as surely as its serial. */
static int add_cmdline_uuids(struct gf_redact *r, const char *text)
{
	int ret = 0;

	for (const char *p = text; !ret && (p = strstr(p, "UUID=")); p += 5) {
		size_t n = strcspn(p + 5, " \t\n");
		char *val = strndup(p + 5, n);

		if (!val)
			return gf_error(-ENOMEM, "out of memory");
		ret = gf_redact_add(r, GF_REDACT_UUID, val);
		free(val);
	}
	return ret;
}

static int collect_file(struct walk *w, int dirfd, const char *name)
{
	int kind = file_kind(w->path), fd, ret;
	bool nvml = !strcmp(w->path, "nvml.json");
	bool config = !strcmp(name, "config") && gf_starts_with(w->path, "sys/devices/pci");
	bool info = gf_starts_with(w->path, "proc/driver/nvidia/gpus/") && !strcmp(name, "information");
	bool cmdline = !strcmp(w->path, "proc/cmdline");
	char *data = NULL;
	size_t len;

	if (kind < 0 && !nvml && !info && !config && !cmdline)
		return 0;
	if ((fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return walk_error(w, -errno);
	ret = slurp(w, fd, &data, &len);
	close(fd);
	if (ret)
		return ret;
	if (config) {
		size_t at = dsn_offset(w->path, (unsigned char *)data, len);

		if (at && !all_zero((unsigned char *)data + at, 8))
			w->r->counts[GF_REDACT_SERIAL]++;	/* replaced where it is */
	} else if (nvml) {
		json_t *j = json_loadb(data, len, 0, NULL);

		ret = add_json_ids(w->r, j);	/* a malformed one was refused before */
		json_decref(j);
	} else if (info) {
		ret = add_nvidia_info(w->r, data);
	} else if (cmdline) {
		if (memchr(data, '\0', len) == NULL)
			ret = add_cmdline_uuids(w->r, data);
	} else if (memchr(data, '\0', len) == NULL) {
		ret = gf_redact_add(w->r, (enum gf_redact_kind)kind, data);
	}
	free(data);
	return ret;
}

int gf_redact_collect(struct gf_redact *r, const char *dir)
{
	struct walk w = { .r = r, .file = collect_file };

	return walk(&w, dir);
}

/* ---- replacing them ---- */

static bool word_char(unsigned char c)
{
	return isalnum(c);
}

/* A hex value written in capitals (0C:42:A1:...) is replaced in capitals. */
static bool all_upper(const char *p, size_t len)
{
	bool upper = false;

	for (size_t i = 0; i < len; i++) {
		if (islower((unsigned char)p[i]))
			return false;
		upper |= isupper((unsigned char)p[i]);
	}
	return upper;
}

/* Replaces in place, as a whole word; true when anything changed. */
static bool replace_in(const struct gf_redact *r, char *buf, size_t len, bool names)
{
	bool changed = false, upper_case;

	for (int i = 0; i < r->n; i++) {
		const struct gf_redact_id *id = &r->ids[i];

		if (names && id->kind == GF_REDACT_HOSTNAME)
			continue;	/* "vm" would rename /proc/sys/vm */
		for (size_t at = 0; id->len <= len && at + id->len <= len; at++) {
			if (tolower((unsigned char)buf[at]) != tolower((unsigned char)id->orig[0]) ||
			    !same_text(id, buf + at))
				continue;
			if ((at && word_char((unsigned char)buf[at - 1])) ||
			    (at + id->len < len && word_char((unsigned char)buf[at + id->len])))
				continue;
			upper_case = id->hex && all_upper(buf + at, id->len);
			for (size_t k = 0; k < id->len; k++)
				buf[at + k] = upper_case ? (char)toupper((unsigned char)id->pseudo[k]) : id->pseudo[k];
			changed = true;
			at += id->len - 1;
		}
	}
	return changed;
}

/* The serial number in config space: 8 bytes from the key and the
 * original, so one serial gets one pseudonym. */
static bool replace_dsn(const struct gf_redact *r, const char *path, char *data, size_t len)
{
	size_t at = dsn_offset(path, (unsigned char *)data, len);
	uint64_t v;

	if (!at || all_zero((unsigned char *)data + at, 8))
		return false;
	v = XXH3_64bits_withSeed(data + at, 8, r->key);
	memcpy(data + at, &v, 8);
	return true;
}

static int apply_file(struct walk *w, int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC), ret;
	char *data = NULL;
	size_t len;

	if (fd < 0)
		return walk_error(w, -errno);
	ret = slurp(w, fd, &data, &len);
	if (!ret) {
		bool words = replace_in(w->r, data, len, false);
		bool dsn = replace_dsn(w->r, w->path, data, len);

		ssize_t put = words || dsn ? pwrite(fd, data, len, 0) : (ssize_t)len;

		if (put != (ssize_t)len)
			ret = walk_error(w, put < 0 ? -errno : -EIO);
	}
	free(data);
	close(fd);
	return ret;
}

static int rename_entry(struct walk *w, int dirfd, const char *name)
{
	char to[NAME_MAX + 1];
	size_t len = strlen(name);

	memcpy(to, name, len + 1);
	if (!replace_in(w->r, to, len, true))
		return 0;
	if (renameat(dirfd, name, dirfd, to))
		return walk_error(w, -errno);
	return 0;
}

static int apply_link(struct walk *w, int dirfd, const char *name)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(dirfd, name, target, sizeof(target) - 1);

	if (n < 0)
		return walk_error(w, -errno);
	target[n] = '\0';
	if (replace_in(w->r, target, (size_t)n, true) &&
	    (unlinkat(dirfd, name, 0) || symlinkat(target, dirfd, name)))
		return walk_error(w, -errno);
	return rename_entry(w, dirfd, name);
}

static int apply_reg(struct walk *w, int dirfd, const char *name)
{
	int ret = apply_file(w, dirfd, name);

	return ret ? ret : rename_entry(w, dirfd, name);
}

int gf_redact_apply(struct gf_redact *r, const char *dir)
{
	struct walk w = { .r = r, .file = apply_reg, .link = apply_link, .dir = rename_entry };

	/* Longest first: an identity inside a longer one goes with it. */
	for (int i = 1; i < r->n; i++)
		for (int j = i; j > 0 && r->ids[j - 1].len < r->ids[j].len; j--) {
			struct gf_redact_id t = r->ids[j];

			r->ids[j] = r->ids[j - 1];
			r->ids[j - 1] = t;
		}
	return walk(&w, dir);
}

json_t *gf_redact_summary(const struct gf_redact *r)
{
	json_t *j = json_object();

	for (int k = 0; j && k < GF_REDACT_NKINDS; k++)
		json_object_set_new(j, kind_names[k], json_integer(r->counts[k]));
	return j;
}
