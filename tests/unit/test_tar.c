/* .tar.gz recordings: the writer's output reads back the same, and the
 * reader refuses malformed, truncated and hostile archives, naming them. */
#include "helpers.h"
#include "t_child.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include "core/fs.h"
#include "core/rmtree.h"
#include "core/tar.h"
#include <gpufeed/error.h>

/* ---- a raw tar writer, to build archives the real writer never would ---- */

struct raw {
	unsigned char data[256 * 1024];
	size_t len;
};

static void raw_entry(struct raw *r, const char *name, char type, const char *link, const char *body)
{
	unsigned char *h = r->data + r->len;
	size_t blen = body ? strlen(body) : 0;
	unsigned sum = 0;

	memset(h, 0, 512);
	memcpy(h, name, strlen(name) < 100 ? strlen(name) : 100);
	snprintf((char *)h + 100, 8, "%07o", 0644);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011zo", blen);
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = (unsigned char)type;
	if (link)
		memcpy(h + 157, link, strlen(link));
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	r->len += 512;
	if (blen) {
		memcpy(r->data + r->len, body, blen);
		r->len += (blen + 511) / 512 * 512;
	}
}

static void raw_end(struct raw *r)
{
	memset(r->data + r->len, 0, 1024);
	r->len += 1024;
}

static void write_gz(const char *path, const void *data, size_t len)
{
	gzFile g = gzopen(path, "wb");

	assert_non_null(g);
	assert_int_equal(gzwrite(g, data, (unsigned)len), (int)len);
	assert_int_equal(gzclose(g), Z_OK);
}

/* Extracting `r` (gzip'd) fails with -EBADMSG, names the archive, says
 * `why`, and creates nothing outside dest. */
static void refused(struct raw *r, const char *why)
{
	char *d = t_mkdtemp(), archive[PATH_MAX], dest[PATH_MAX];

	snprintf(archive, sizeof(archive), "%s/bad.tar.gz", d);
	snprintf(dest, sizeof(dest), "%s/dest", d);
	assert_int_equal(mkdir(dest, 0755), 0);
	write_gz(archive, r->data, r->len);
	assert_int_equal(gf_tar_extract(archive, dest), -EBADMSG);
	if (!strstr(gf_last_error(), archive) || !strstr(gf_last_error(), why))
		fail_msg("wanted '%s' naming the archive, got: %s", why, gf_last_error());
	{
		char p[PATH_MAX + 16];

		snprintf(p, sizeof(p), "%s/passwd", d);
		assert_int_not_equal(access(p, F_OK), 0);
	}
	t_rmtree(d);
	free(d);
}

static void hostile_archives(void **state)
{
	static struct raw r;

	(void)state;
	memset(&r, 0, sizeof(r));
	raw_entry(&r, "/etc/passwd", '0', NULL, "x");
	raw_end(&r);
	refused(&r, "absolute");

	memset(&r, 0, sizeof(r));
	raw_entry(&r, "rec/../../passwd", '0', NULL, "x");
	raw_end(&r);
	refused(&r, "'..'");

	/* A link, then a file through it: never written outside. */
	memset(&r, 0, sizeof(r));
	raw_entry(&r, "up", '2', "..", NULL);
	raw_entry(&r, "up/passwd", '0', NULL, "x");
	raw_end(&r);
	refused(&r, "through a link");

	memset(&r, 0, sizeof(r));
	raw_entry(&r, "null", '3', NULL, NULL);
	raw_end(&r);
	refused(&r, "device and FIFO");

	memset(&r, 0, sizeof(r));
	raw_entry(&r, "fifo", '6', NULL, NULL);
	raw_end(&r);
	refused(&r, "device and FIFO");

	memset(&r, 0, sizeof(r));
	raw_entry(&r, "hard", '1', "/etc/passwd", NULL);
	raw_end(&r);
	refused(&r, "hard links");

	memset(&r, 0, sizeof(r));
	raw_entry(&r, "a", '0', NULL, "1");
	raw_entry(&r, "a", '0', NULL, "2");
	raw_end(&r);
	refused(&r, "twice");

	/* A bad checksum. */
	memset(&r, 0, sizeof(r));
	raw_entry(&r, "a", '0', NULL, "1");
	r.data[0] = 'b';
	raw_end(&r);
	refused(&r, "checksum");

	/* Cut in the middle of a file, and with no end marker. */
	memset(&r, 0, sizeof(r));
	raw_entry(&r, "a", '0', NULL, "1");
	r.len -= 100;
	refused(&r, "truncated");
	memset(&r, 0, sizeof(r));
	raw_entry(&r, "a", '0', NULL, "1");
	refused(&r, "truncated");

	/* A size beyond the limit (no data needed: refused up front). */
	memset(&r, 0, sizeof(r));
	raw_entry(&r, "big", '0', NULL, NULL);
	snprintf((char *)r.data + 124, 12, "%011llo", GF_TAR_MAX_FILE + 1);
	{
		unsigned sum = 0;

		memset(r.data + 148, ' ', 8);
		for (int i = 0; i < 512; i++)
			sum += r.data[i];
		snprintf((char *)r.data + 148, 8, "%06o", sum);
	}
	raw_end(&r);
	refused(&r, "larger than");

	/* Not a tar at all. */
	memset(&r, 0, sizeof(r));
	memset(r.data, 'x', 1024);
	r.len = 1024;
	refused(&r, "not a tar archive");
}

/* A damaged gzip stream (its CRC no longer matches) is refused. */
static void damaged_gzip(void **state)
{
	char *d = t_mkdtemp(), src[PATH_MAX], archive[PATH_MAX], dest[PATH_MAX];
	char big[8192];
	FILE *f;
	long size;

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	snprintf(src, sizeof(src), "%s/src", d);
	t_write(src, "sys/file", big);
	t_write(src, "gpufeed-recording.json", "{}\n");
	snprintf(archive, sizeof(archive), "%s/rec.tar.gz", d);
	assert_int_equal(gf_tar_write(src, "rec", archive, NULL, NULL), 0);
	assert_int_equal(gf_tar_holds(archive, "gpufeed-recording.json"), 1);
	assert_int_equal(gf_tar_holds(archive, "file"), 0);	/* only at the top or one down */
	f = fopen(archive, "r+");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, size - 6, SEEK_SET);		/* inside the CRC trailer */
	fputc(0x55, f);
	fclose(f);
	snprintf(dest, sizeof(dest), "%s/dest", d);
	assert_int_equal(mkdir(dest, 0755), 0);
	assert_int_equal(gf_tar_extract(archive, dest), -EBADMSG);
	assert_non_null(strstr(gf_last_error(), archive));
	assert_int_equal(gf_tar_holds(archive, "gpufeed-recording.json"), -EBADMSG);
	/* Cut short: the last 20 bytes missing. */
	assert_int_equal(truncate(archive, size - 20), 0);
	t_rmtree(dest);
	assert_int_equal(mkdir(dest, 0755), 0);
	assert_int_equal(gf_tar_extract(archive, dest), -EBADMSG);
	t_rmtree(d);
	free(d);
}

/* Long names (pax records) and long link targets survive a round trip. */
static void round_trip(void **state)
{
	char *d = t_mkdtemp(), src[PATH_MAX], archive[PATH_MAX], dest[PATH_MAX], path[PATH_MAX];
	char longdir[600] = "sys", longlink[300] = "", link[PATH_MAX], *text;
	ssize_t n;

	(void)state;
	for (int i = 0; i < 20; i++)
		strcat(longdir, "/0123456789abcdefghij");
	for (int i = 0; i < 20; i++)
		strcat(longlink, "../devices/x/");
	strcat(longlink, "end");
	snprintf(src, sizeof(src), "%s/src", d);
	snprintf(path, sizeof(path), "%s/value", longdir);
	t_write(src, path, "42\n");
	t_write(src, "sys/short", "1\n");
	t_symlink(src, "sys/link", longlink);
	t_symlink(src, "sys/up", "/");
	snprintf(archive, sizeof(archive), "%s/rec.tar.gz", d);
	assert_int_equal(gf_tar_write(src, "rec", archive, NULL, NULL), 0);
	assert_true(gf_tar_sniff(archive));
	assert_int_equal(gf_tar_holds(archive, "gpufeed-recording.json"), 0);
	snprintf(dest, sizeof(dest), "%s/dest", d);
	assert_int_equal(mkdir(dest, 0755), 0);
	assert_int_equal(gf_tar_extract(archive, dest), 0);
	snprintf(path, sizeof(path), "%s/rec/%s/value", dest, longdir);
	text = t_read(path);
	assert_non_null(text);
	assert_string_equal(text, "42\n");
	free(text);
	snprintf(path, sizeof(path), "%s/rec/sys/link", dest);
	n = readlink(path, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = '\0';
	assert_string_equal(link, longlink);
	snprintf(path, sizeof(path), "%s/rec/sys/up", dest);
	n = readlink(path, link, sizeof(link) - 1);
	assert_int_equal(n, 1);
	/* The same tree gives the same bytes (no times, no owners). */
	{
		char again[PATH_MAX + 8], *a, *b;
		struct stat sa, sb;

		snprintf(again, sizeof(again), "%s/again.tar.gz", d);
		assert_int_equal(gf_tar_write(src, "rec", again, NULL, NULL), 0);
		assert_int_equal(stat(archive, &sa), 0);
		assert_int_equal(stat(again, &sb), 0);
		assert_int_equal(sa.st_size, sb.st_size);
		a = t_read(archive);
		b = t_read(again);
		assert_non_null(a);
		assert_non_null(b);
		assert_memory_equal(a, b, (size_t)sa.st_size);
		free(a);
		free(b);
	}
	t_rmtree(d);
	free(d);
}

/* In a child: unpack, say where, and die as kill -9 does. */
static int unpack_and_die(void *archive, int wfd)
{
	struct gf_fs fs;

	if (gf_fs_init(&fs, archive) || write(wfd, fs.unpacked, strlen(fs.unpacked)) < 0)
		return 1;
	raise(SIGKILL);		/* no gf_fs_fini */
	return 1;
}

/* --root FILE.tar.gz killed with -9 leaves its unpacked copy behind; the
 * next one to unpack removes it, and leaves a live process's alone. */
static void killed_unpack_is_cleaned(void **state)
{
	char *d = t_mkdtemp(), src[PATH_MAX], archive[PATH_MAX], left[PATH_MAX] = "", live[PATH_MAX];
	struct gf_fs fs;
	int status;

	(void)state;
	snprintf(src, sizeof(src), "%s/src", d);
	t_write(src, "sys/devices/system/cpu/online", "0\n");
	snprintf(archive, sizeof(archive), "%s/rec.tar.gz", d);
	assert_int_equal(gf_tar_write(src, "rec", archive, NULL, NULL), 0);
	status = t_fork_collect(unpack_and_die, archive, left, sizeof(left));
	assert_true(WIFSIGNALED(status));
	assert_non_null(strstr(left, "/gpufeed-unpack-"));
	assert_int_equal(access(left, F_OK), 0);	/* left behind */
	/* A live process's copy (pid 1 is always alive) is not touched. */
	snprintf(live, sizeof(live), "%.*s", (int)(strrchr(left, '/') - left), left);
	{
		char *name = strrchr(left, '/') + 1, *pidpart = strchr(name + strlen("gpufeed-unpack-"), '-') + 1;

		snprintf(live + strlen(live), sizeof(live) - strlen(live), "/%.*s1-test", (int)(pidpart - name), name);
	}
	assert_int_equal(mkdir(live, 0700), 0);
	assert_int_equal(gf_fs_init(&fs, archive), 0);
	assert_int_equal(access(left, F_OK), -1);	/* the dead one's is gone */
	assert_int_equal(access(live, F_OK), 0);
	assert_int_equal(access(fs.unpacked, F_OK), 0);
	gf_fs_fini(&fs);
	assert_int_equal(rmdir(live), 0);
	t_rmtree(d);
	free(d);
}


/* An entry whose name is longer than ustar's 100 bytes: a GNU 'L' record
 * before it, as tar writes one. */
static void raw_long_entry(struct raw *r, const char *name, char type, const char *body)
{
	raw_entry(r, "././@LongLink", 'L', NULL, name);
	raw_entry(r, name, type, NULL, body);
}

/* "rec/d/d/.../d" with `depth` directories below rec. */
static void deep_name(char *buf, size_t size, int depth, const char *last)
{
	size_t len = (size_t)snprintf(buf, size, "rec");

	for (int i = 0; i < depth && len + 3 < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "/d");
	if (last)
		snprintf(buf + len, size - len, "/%s", last);
}

/* Unpacked copies of this process's, in /dev/shm and $TMPDIR. */
static int my_unpacks(void)
{
	const char *tmp = getenv("TMPDIR");
	const char *bases[] = { "/dev/shm", tmp && *tmp ? tmp : "/tmp" };
	char mark[64];
	int n = 0;

	snprintf(mark, sizeof(mark), "-%ld-", (long)getpid());
	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		DIR *d = opendir(bases[i]);
		struct dirent *de;

		while (d && (de = readdir(d)))
			n += !strncmp(de->d_name, "gpufeed-unpack-", 15) && strstr(de->d_name + 15, mark);
		if (d)
			closedir(d);
	}
	return n;
}

static char *write_raw(const char *dir, const char *name, struct raw *r)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_gz(path, r->data, r->len);
	return path;
}

/* Directories nested deeper than a recording's are refused before they
 * are made (300 levels once unpacked to /dev/shm and, deeper than the
 * remover went, stayed there); the deepest allowed unpacks and goes. */
static void deep_archive_refused(void **state)
{
	static struct raw r;
	char *d = t_mkdtemp(), name[PATH_MAX], dest[PATH_MAX], *archive;
	struct gf_fs fs;
	int before = my_unpacks();

	(void)state;
	memset(&r, 0, sizeof(r));
	deep_name(name, sizeof(name), 300, "f");
	raw_long_entry(&r, name, '0', "x");
	raw_end(&r);
	archive = write_raw(d, "deep.tar.gz", &r);
	snprintf(dest, sizeof(dest), "%s/dest", d);
	assert_int_equal(mkdir(dest, 0755), 0);
	assert_int_equal(gf_tar_extract(archive, dest), -EBADMSG);
	if (!strstr(gf_last_error(), archive) || !strstr(gf_last_error(), "nested deeper than 64"))
		fail_msg("wanted the archive and 'nested deeper than 64', got: %s", gf_last_error());
	assert_int_equal(gf_tar_holds(archive, "gpufeed-recording.json"), -EBADMSG);
	assert_int_equal(gf_fs_init(&fs, archive), -EBADMSG);
	assert_non_null(strstr(gf_last_error(), "deep.tar.gz"));
	assert_int_equal(my_unpacks(), before);

	/* As deep as allowed: unpacked, and removed by gf_fs_fini. */
	memset(&r, 0, sizeof(r));
	deep_name(name, sizeof(name), GF_TAR_MAX_DEPTH - 2, "f");	/* rec + the dirs + f */
	raw_long_entry(&r, name, '0', "x");
	raw_end(&r);
	archive = write_raw(d, "deepest.tar.gz", &r);
	if (gf_fs_init(&fs, archive))
		fail_msg("%s", gf_last_error());
	assert_int_equal(my_unpacks(), before + 1);
	gf_fs_fini(&fs);
	assert_int_equal(my_unpacks(), before);
	t_rmtree(d);
	free(d);
}

/* Each limit on what an archive expands to, at a size a test can build:
 * refused with a message naming the archive and the limit. */
static void limits_refused(void **state)
{
	static struct raw r;
	char *d = t_mkdtemp(), dest[PATH_MAX], *archive;
	struct gf_tar_limits lim = GF_TAR_LIMITS_DEFAULT;
	static const struct {
		int which;
		const char *why;
	} cases[] = {
		{ 0, "nested deeper than 3" },
		{ 1, "more than 4 entries" },
		{ 2, "larger than 1000 bytes" },
		{ 3, "unpacks to more than 4096 bytes" },
	};

	(void)state;
	memset(&r, 0, sizeof(r));
	raw_entry(&r, "rec/", '5', NULL, NULL);
	raw_entry(&r, "rec/a/b/c/f", '0', NULL, "1");	/* depth 5 */
	raw_entry(&r, "rec/g", '0', NULL, NULL);
	raw_entry(&r, "rec/h", '0', NULL, NULL);
	{
		char big[1500];

		memset(big, 'y', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		raw_entry(&r, "rec/big", '0', NULL, big);	/* 5 entries, 1499 bytes */
	}
	raw_end(&r);
	archive = write_raw(d, "lim.tar.gz", &r);
	snprintf(dest, sizeof(dest), "%s/dest", d);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gf_tar_limits l = lim;

		if (cases[i].which == 0)
			l.depth = 3;
		else if (cases[i].which == 1)
			l.entries = 4;
		else if (cases[i].which == 2)
			l.file = 1000;
		else
			l.total = 4096;
		t_rmtree(dest);
		assert_int_equal(mkdir(dest, 0755), 0);
		assert_int_equal(gf_tar_extract_within(archive, dest, &l), -EBADMSG);
		if (!strstr(gf_last_error(), archive) || !strstr(gf_last_error(), cases[i].why))
			fail_msg("wanted '%s' naming the archive, got: %s", cases[i].why, gf_last_error());
	}
	t_rmtree(dest);
	assert_int_equal(mkdir(dest, 0755), 0);
	assert_int_equal(gf_tar_extract_within(archive, dest, &lim), 0);
	t_rmtree(d);
	free(d);
}

/* The writer refuses a tree the reader would refuse, before writing. */
static void writer_keeps_the_limits(void **state)
{
	char *d = t_mkdtemp(), src[PATH_MAX], name[PATH_MAX], archive[PATH_MAX];

	(void)state;
	snprintf(src, sizeof(src), "%s/src", d);
	deep_name(name, sizeof(name), GF_TAR_MAX_DEPTH, "f");
	t_write(src, name, "1\n");
	snprintf(archive, sizeof(archive), "%s/rec.tar.gz", d);
	assert_int_equal(gf_tar_write(src, "top", archive, NULL, NULL), -EFBIG);
	assert_non_null(strstr(gf_last_error(), "nested deeper than 64"));
	assert_int_not_equal(access(archive, F_OK), 0);
	t_rmtree(d);
	free(d);
}

static void append(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "a");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* A gzip member of `len` bytes of `data`, appended to path. */
static void append_gz(const char *path, const char *dir, const void *data, size_t len)
{
	char tmp[PATH_MAX], *bytes;
	struct stat st;

	snprintf(tmp, sizeof(tmp), "%s/member.gz", dir);
	write_gz(tmp, data, len);
	assert_int_equal(stat(tmp, &st), 0);
	bytes = t_read(tmp);
	assert_non_null(bytes);
	append(path, bytes, (size_t)st.st_size);
	free(bytes);
	unlink(tmp);
}

static void expect_refused(const char *archive, const char *dir, const char *why)
{
	char dest[PATH_MAX];

	snprintf(dest, sizeof(dest), "%s/dest", dir);
	t_rmtree(dest);
	assert_int_equal(mkdir(dest, 0755), 0);
	if (gf_tar_extract(archive, dest) != -EBADMSG || !strstr(gf_last_error(), archive) ||
	    !strstr(gf_last_error(), why))
		fail_msg("%s: wanted -EBADMSG, '%s', got: %s", archive, why, gf_last_error());
	assert_int_equal(gf_tar_holds(archive, "gpufeed-recording.json"), -EBADMSG);
}

/* The gzip trailer (CRC and length, 8 bytes) cut anywhere, and anything
 * after the gzip stream, are refused; a further gzip member of zeros (tar's
 * padding, compressed apart) is still a sound archive. */
static void trailer_and_trailing_data(void **state)
{
	char *d = t_mkdtemp(), src[PATH_MAX], good[PATH_MAX], bad_path[PATH_MAX], dest[PATH_MAX], *bytes;
	static const char zeros[4096];
	struct stat st;

	(void)state;
	snprintf(src, sizeof(src), "%s/src", d);
	t_write(src, "gpufeed-recording.json", "{}\n");
	t_write(src, "sys/devices/system/cpu/online", "0-3\n");
	snprintf(good, sizeof(good), "%s/good.tar.gz", d);
	assert_int_equal(gf_tar_write(src, "rec", good, NULL, NULL), 0);
	assert_int_equal(stat(good, &st), 0);
	bytes = t_read(good);
	assert_non_null(bytes);
	snprintf(bad_path, sizeof(bad_path), "%s/bad.tar.gz", d);
	for (int cut = 1; cut <= 8; cut++) {
		unlink(bad_path);
		append(bad_path, bytes, (size_t)st.st_size - (size_t)cut);
		expect_refused(bad_path, d, "truncated");
	}
	unlink(bad_path);
	append(bad_path, bytes, (size_t)st.st_size);
	append(bad_path, "garbage\n", 8);
	expect_refused(bad_path, d, "data after the end of the gzip stream");
	unlink(bad_path);
	append(bad_path, bytes, (size_t)st.st_size);
	append(bad_path, zeros, 1);
	expect_refused(bad_path, d, "data after the end of the gzip stream");
	unlink(bad_path);
	append(bad_path, bytes, (size_t)st.st_size);
	append_gz(bad_path, d, "not tar\n", 8);
	expect_refused(bad_path, d, "data after the end of the archive");
	unlink(bad_path);
	append(bad_path, bytes, (size_t)st.st_size);
	append_gz(bad_path, d, zeros, sizeof(zeros));
	snprintf(dest, sizeof(dest), "%s/dest", d);
	t_rmtree(dest);
	assert_int_equal(mkdir(dest, 0755), 0);
	if (gf_tar_extract(bad_path, dest))
		fail_msg("a second gzip member of zeros: %s", gf_last_error());
	free(bytes);
	t_rmtree(d);
	free(d);
}

static volatile sig_atomic_t got_signal;

static void set_flag(int sig)
{
	(void)sig;
	got_signal = 1;
}

/* As cli/output.c's -o cleanup: do its own work, then die of the signal. */
static void die_of_it(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
}

enum child_kind { PLAIN, DYING_HANDLER, FLAG_HANDLER, GRANDCHILD };

struct sig_child {
	const char *archive;
	enum child_kind kind;
	int sig;
};

/* Unpacks, says where (one line), and waits for the signal. */
static int unpack_and_wait(const struct sig_child *c, int wfd, int ready)
{
	struct gf_fs fs;
	char line[PATH_MAX + 1];

	if (c->kind == DYING_HANDLER)
		signal(c->sig, die_of_it);
	if (c->kind == FLAG_HANDLER)
		signal(c->sig, set_flag);
	if (gf_fs_init(&fs, c->archive))
		return 10;
	snprintf(line, sizeof(line), "%s\n", fs.unpacked);
	if (write(wfd, line, strlen(line)) < 0)
		return 11;
	if (c->kind == GRANDCHILD) {
		/* A forked child that dies of the signal leaves its parent's copy. */
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			raise(c->sig);
			_exit(12);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
			return 13;
		if (access(fs.unpacked, F_OK))
			return 14;
		gf_fs_fini(&fs);
		return 0;
	}
	close(ready);			/* the parent may signal now */
	while (!got_signal)
		pause();
	/* Only a handler that lets the process go on gets here: the copy is
	 * still there for it, and the normal path removes it. */
	if (access(fs.unpacked, F_OK))
		return 15;
	gf_fs_fini(&fs);
	return access(fs.unpacked, F_OK) ? 0 : 16;
}

/* Forks unpack_and_wait, signals it once it is waiting, and returns its
 * wait status; *copy is where it had unpacked. */
static int signal_child(const struct sig_child *c, char *copy, size_t size)
{
	int pfd[2], rfd[2], status;
	size_t got = 0;
	ssize_t n;
	char tmp;
	pid_t pid;

	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(pipe(rfd), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pfd[0]);
		close(rfd[0]);
		_exit(unpack_and_wait(c, pfd[1], rfd[1]));
	}
	close(pfd[1]);
	close(rfd[1]);
	while (got < size - 1 && (n = read(pfd[0], copy + got, 1)) == 1 && copy[got] != '\n')
		got++;
	copy[got] = '\0';
	if (c->kind != GRANDCHILD) {
		/* EOF on the second pipe: the child has closed it, about to pause();
		 * a signal before pause() returns sets the flag or kills it anyway. */
		assert_int_equal(read(rfd[0], &tmp, 1), 0);
		assert_int_equal(kill(pid, c->sig), 0);
	}
	close(pfd[0]);
	close(rfd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

/* SIGINT, SIGTERM and SIGHUP end a process using an unpacked archive:
 * its copy goes with it, also when the process had its own handler that
 * ends it (as -o FILE's); a handler that lets it go on keeps the copy
 * until gf_fs_fini; a forked child's death is not its parent's. */
static void signals_remove_the_copy(void **state)
{
	char *d = t_mkdtemp(), src[PATH_MAX], archive[PATH_MAX], copy[PATH_MAX];
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	(void)state;
	snprintf(src, sizeof(src), "%s/src", d);
	t_write(src, "sys/devices/system/cpu/online", "0\n");
	snprintf(archive, sizeof(archive), "%s/rec.tar.gz", d);
	assert_int_equal(gf_tar_write(src, "rec", archive, NULL, NULL), 0);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		for (enum child_kind k = PLAIN; k <= GRANDCHILD; k++) {
			struct sig_child c = { archive, k, sigs[i] };
			int status = signal_child(&c, copy, sizeof(copy));

			if (!strstr(copy, "/gpufeed-unpack-"))
				fail_msg("%s, kind %d: no copy named (status 0x%x)", strsignal(sigs[i]), k, status);
			if (k == FLAG_HANDLER || k == GRANDCHILD) {
				if (!WIFEXITED(status) || WEXITSTATUS(status))
					fail_msg("%s, kind %d: status 0x%x", strsignal(sigs[i]), k, status);
			} else if (!WIFSIGNALED(status) || WTERMSIG(status) != sigs[i]) {
				fail_msg("%s, kind %d: not ended by the signal (status 0x%x)", strsignal(sigs[i]), k, status);
			}
			if (access(copy, F_OK) == 0)
				fail_msg("%s, kind %d: %s left behind", strsignal(sigs[i]), k, copy);
		}
	}
	t_rmtree(d);
	free(d);
}

/* The remover a signal handler uses: any depth (gf_rmtree stops at its
 * limit), links removed and not followed, an absent path is no error. */
static void signal_safe_rmtree(void **state)
{
	char *d = t_mkdtemp(), tree[PATH_MAX], name[PATH_MAX], outside[PATH_MAX], keep[PATH_MAX + 16];

	(void)state;
	snprintf(tree, sizeof(tree), "%s/tree", d);
	snprintf(outside, sizeof(outside), "%s/outside", d);
	t_write(outside, "precious", "1\n");
	deep_name(name, sizeof(name), GF_RMTREE_MAX_DEPTH + 20, "f");
	t_write(tree, name, "x\n");
	deep_name(name, sizeof(name), 7, "g");
	t_write(tree, name, "y\n");
	t_write(tree, "rec/top-file", "z\n");
	t_symlink(tree, "rec/d/link", outside);
	deep_name(name, sizeof(name), 3, "empty");
	{
		char path[PATH_MAX * 2];

		snprintf(path, sizeof(path), "%s/%s", tree, name);
		assert_int_equal(mkdir(path, 0755), 0);
	}
	assert_int_equal(gf_rmtree(tree), -ELOOP);	/* why unpacking stops at GF_TAR_MAX_DEPTH */
	assert_int_equal(gf_rmtree_signal_safe(tree), 0);
	assert_int_not_equal(access(tree, F_OK), 0);
	snprintf(keep, sizeof(keep), "%s/precious", outside);
	assert_int_equal(access(keep, F_OK), 0);
	assert_int_equal(gf_rmtree_signal_safe(tree), 0);	/* absent */
	t_rmtree(d);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(killed_unpack_is_cleaned),
		cmocka_unit_test(hostile_archives),
		cmocka_unit_test(damaged_gzip),
		cmocka_unit_test(deep_archive_refused),
		cmocka_unit_test(limits_refused),
		cmocka_unit_test(writer_keeps_the_limits),
		cmocka_unit_test(trailer_and_trailing_data),
		cmocka_unit_test(signals_remove_the_copy),
		cmocka_unit_test(signal_safe_rmtree),
	};

	return cmocka_run_group_tests_name("tar", tests, NULL, NULL);
}
