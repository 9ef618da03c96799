/* Runtime values: sysfs/procfs files read and written through the root. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/strutil.h"
#include "tune/tune_internal.h"

/* Only kernel tunables: a safe fix never writes anywhere else. */
bool value_path_ok(const char *path)
{
	return (gf_starts_with(path, "/proc/sys/") || gf_starts_with(path, "/sys/")) && !strstr(path, "/..");
}

char *value_meaning(const char *text)
{
	const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;
	char *out;
	size_t n = 0;

	/* A choice file: the selected word is what a write takes. */
	if (open && close)
		return strndup(open + 1, (size_t)(close - open - 1));
	if (!(out = malloc(strlen(text) + 1)))
		return NULL;
	for (const char *p = text; *p; p++) {
		bool space = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';

		if (!space)
			out[n++] = *p;
		else if (n && out[n - 1] != ' ')
			out[n++] = ' ';
	}
	if (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	return out;
}

bool value_same(const char *a, const char *b)
{
	char *ma = value_meaning(a), *mb = value_meaning(b);
	bool same = ma && mb && !strcmp(ma, mb);

	free(ma);
	free(mb);
	return same;
}

int value_read(const struct tune_state *s, const char *path, char **raw, size_t *len)
{
	return gf_fs_read(&s->fs, path, raw, len);
}

/* This machine's file: one write(2), as a kernel tunable takes a value. */
static int write_live(const struct tune_state *s, const char *path, const char *data, size_t len)
{
	int fd, err = 0;
	ssize_t w;

	fd = gf_fs_open(&s->fs, path, O_WRONLY | O_NOFOLLOW);
	if (fd < 0)
		return gf_error_errno(-errno, path);
	w = write(fd, data, len);
	if (w < 0)
		err = -errno;
	else if ((size_t)w != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err ? gf_error_errno(err, path) : 0;
}

/* A choice file ("none [mq-deadline] kyber") after `value` is written:
 * the first word that is the value in brackets (the kernel selects one),
 * every other word bare.  NULL when no word is the value, or no memory. */
static char *choice_shows(const char *cur, const char *value)
{
	size_t vlen = strlen(value), len;
	char *out = NULL;
	bool found = false;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (const char *p = cur; *p;) {
		size_t sp = strspn(p, " \t\n"), wl;
		const char *word = p + sp, *bare;
		bool sel, pick;

		fwrite(p, 1, sp, f);
		if (!*word)
			break;
		wl = strcspn(word, " \t\n");
		sel = word[0] == '[' && wl >= 2 && word[wl - 1] == ']';
		bare = sel ? word + 1 : word;
		wl = sel ? wl - 2 : wl;
		pick = !found && wl == vlen && !strncmp(bare, value, vlen);
		found |= pick;
		fprintf(f, pick ? "[%.*s]" : "%.*s", (int)wl, bare);
		p = bare + wl + sel;
	}
	if (fclose(f) || !found) {
		free(out);
		return NULL;
	}
	return out;
}

/* What a kernel file reads after `value` is written: a choice file moves
 * its brackets, any other shows the value and a newline.  NULL: no memory. */
static char *as_kernel_shows(const char *cur, const char *value)
{
	const char *open = strchr(cur, '[');
	char *out = open && strchr(open, ']') ? choice_shows(cur, value) : NULL;

	if (!out && asprintf(&out, "%s\n", value) < 0)
		return NULL;
	return out;
}

int value_write(struct tune_state *s, const char *path, const char *value, const char *cur)
{
	char *shown;
	int ret;

	/* An empty value is written as a newline, as `echo > file` does: the
	 * kernel ignores a write of nothing, and a newline clears a list
	 * (ip_local_reserved_ports). */
	if (gf_fs_live(&s->fs))
		return write_live(s, path, value[0] ? value : "\n", value[0] ? strlen(value) : 1);
	if (!(shown = as_kernel_shows(cur ? cur : "", value)))
		return gf_error(-ENOMEM, "out of memory");
	ret = value_write_raw(s, path, shown, strlen(shown));
	free(shown);
	return ret;
}

int value_write_raw(struct tune_state *s, const char *path, const char *raw, size_t len)
{
	return root_replace(s, path, raw, len, 0);
}
