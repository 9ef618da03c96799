/* Checkpoints (gf_ckpt_*, gf_io_write_file_atomic): direct and buffered,
 * sizes from 0 to past the chunk and the dirty limit, exact content and
 * mode, no temp file left; abort, write and fsync errors keep the old
 * file; both back ends, on disk, tmpfs and ramfs. */
#include "test_io_util.h"
#include "io/ckpt_hook.h"

#include <dirent.h>
#include <sys/sysmacros.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define MiB (1u << 20)

static const size_t sizes[] = { 0, 1, 4095, 4096, MiB + 7, 9 * MiB };

static void check_ckpt(struct t_fs *fs, const char *rel, size_t size, unsigned seed, mode_t mode)
{
	struct stat st;

	assert_int_equal(stat(t_path(fs, rel), &st), 0);
	assert_int_equal(st.st_mode & 07777, mode);
	assert_int_equal((size_t)st.st_size, size);
	t_check_file(t_path(fs, rel), size, seed);
	assert_int_equal(t_count_names(fs->base, ".tmp-"), 0);
}

/* In pieces of odd sizes, through gf_ckpt_write. */
static void write_pieces(struct gf_io *io, const char *path, const uint8_t *data, size_t size,
			 const struct gf_ckpt_opts *o)
{
	struct gf_ckpt *c;
	size_t off = 0, piece = 1;

	assert_int_equal(gf_ckpt_open(io, path, o, &c), 0);
	while (off < size) {
		size_t n = size - off < piece ? size - off : piece;

		assert_int_equal(gf_ckpt_write(c, data + off, n), 0);
		off += n;
		piece = piece * 3 + 4093;
	}
	assert_int_equal(gf_ckpt_write(c, data, 0), 0);
	assert_int_equal(gf_ckpt_commit(c), 0);
}

static void sizes_and_modes(struct t_fs *fs)
{
	uint8_t *data = malloc(9 * MiB);
	struct gf_io *io;

	assert_non_null(data);
	T_FOR_EACH_BACKEND(fs, io, "checkpoint sizes", 0, 0, 0) {
		for (int direct = 0; direct < 2; direct++) {
			struct gf_ckpt_opts o = { .struct_size = sizeof(struct gf_ckpt_opts),
				.direct = direct, .dirty_limit = MiB, .mode = 0640 };
			unsigned seed = 10 + (unsigned)direct;

			t_fill(data, 9 * MiB, 0, seed);
			for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
				const char *path = t_path(fs, "ck.bin");

				print_message("[ -- size  ] %zu, %s\n", sizes[i], direct ? "direct" : "buffered");
				if (i % 2)
					write_pieces(io, path, data, sizes[i], &o);
				else
					assert_int_equal(gf_io_write_file_atomic(io, path, data, sizes[i], &o), 0);
				check_ckpt(fs, "ck.bin", sizes[i], seed, 0640);
			}
			/* Small chunks, also not a multiple of any block. */
			o.chunk = 4096 + 1;
			o.keep_cache = true;
			write_pieces(io, t_path(fs, "ck.bin"), data, MiB + 7, &o);
			check_ckpt(fs, "ck.bin", MiB + 7, seed, 0640);
		}
		assert_int_equal(gf_io_inflight(io), 0);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	/* Default mode, whatever the umask. */
	io = t_io_open(GF_IO_PSYNC, 0, 0, 0);
	{
		mode_t old = umask(077);

		t_fill(data, 100, 0, 12);
		assert_int_equal(gf_io_write_file_atomic(io, t_path(fs, "def.bin"), data, 100, NULL), 0);
		umask(old);
		check_ckpt(fs, "def.bin", 100, 12, 0644);
	}
	/* A directory that is not there. */
	{
		struct gf_ckpt *c = (struct gf_ckpt *)data;

		assert_int_equal(gf_ckpt_open(io, t_path(fs, "no/such/dir/ck.bin"), NULL, &c), -ENOENT);
		assert_null(c);
		assert_true(t_contains(gf_last_error(), "no/such/dir/ck.bin"));
		assert_int_equal(gf_ckpt_open(io, "", NULL, &c), -EINVAL);
	}
	assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	free(data);
}
T_FS_TESTS(sizes_and_modes);

/* Abort, write errors, fsync errors: the old file stays, no temp file. */
static void failures(struct t_fs *fs)
{
	const size_t big = 3 * MiB + 5;
	uint8_t *data = malloc(big);
	struct gf_io *io;

	assert_non_null(data);
	t_fill(data, big, 0, 13);
	t_write(fs->base, "ck.bin", "old");
	T_FOR_EACH_BACKEND(fs, io, "checkpoint failures", 0, 0, 0) {
		for (int direct = 0; direct < 2; direct++) {
			struct gf_ckpt_opts o = { .struct_size = sizeof(struct gf_ckpt_opts),
				.direct = direct, .dirty_limit = MiB };
			struct gf_io_fault eio = { .op = GF_IO_WRITE, .err = -EIO, .cut = -1, .count = 1 };
			const char *path = t_path(fs, "ck.bin");
			struct gf_ckpt *c;
			int rc;

			/* Abort, at once and after data went out. */
			assert_int_equal(gf_ckpt_open(io, path, &o, &c), 0);
			assert_int_equal(t_count_names(fs->base, ".tmp-"), 1);
			gf_ckpt_abort(c);
			t_check_kept(fs, "ck.bin", "old");
			assert_int_equal(gf_ckpt_open(io, path, &o, &c), 0);
			assert_int_equal(gf_ckpt_write(c, data, big), 0);
			gf_ckpt_abort(c);
			t_check_kept(fs, "ck.bin", "old");
			gf_ckpt_abort(NULL);

			/* A write error in the last piece: commit fails. */
			gf_io_fault_clear();
			assert_int_equal(gf_io_fault_add(&eio), 0);
			assert_int_equal(gf_ckpt_open(io, path, &o, &c), 0);
			assert_int_equal(gf_ckpt_write(c, data, 1000), 0);
			assert_int_equal(gf_ckpt_commit(c), -EIO);
			assert_true(t_contains(gf_last_error(), "ck.bin"));
			t_check_kept(fs, "ck.bin", "old");

			/* A write error in the middle: seen by a write or the
			 * commit, never lost. */
			gf_io_fault_clear();
			eio.off = MiB;
			eio.len = 1;
			assert_int_equal(gf_io_fault_add(&eio), 0);
			assert_int_equal(gf_ckpt_open(io, path, &o, &c), 0);
			rc = gf_ckpt_write(c, data, big);
			assert_true(rc == 0 || rc == -EIO);
			if (rc)
				assert_int_equal(gf_ckpt_write(c, data, 1), -EIO);	/* sticks */
			assert_int_equal(gf_ckpt_commit(c), -EIO);
			t_check_kept(fs, "ck.bin", "old");
			gf_io_fault_clear();
			assert_int_equal(gf_io_fault_add(&eio), 0);
			assert_int_equal(gf_io_write_file_atomic(io, path, data, big, &o), -EIO);
			t_check_kept(fs, "ck.bin", "old");

			/* fdatasync fails. */
			gf_io_fault_clear();
			assert_int_equal(gf_io_fault_parse("fsync:eio*1"), 0);
			assert_int_equal(gf_io_write_file_atomic(io, path, data, big, &o), -EIO);
			assert_true(t_contains(gf_last_error(), "fdatasync"));
			t_check_kept(fs, "ck.bin", "old");
			gf_io_fault_clear();
		}
		assert_int_equal(gf_io_inflight(io), 0);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	free(data);
}
T_FS_TESTS(failures);

/* O_DIRECT taken at open, refused when the first (padded) block is
 * written (EINVAL, injected): the engine falls back to the page cache and
 * the file still ends up with its exact size. */
static void direct_refused(struct t_fs *fs)
{
	const size_t size = 100;
	uint8_t data[100];
	struct gf_io *io;

	t_fill(data, size, 0, 14);
	T_FOR_EACH_BACKEND(fs, io, "checkpoint, O_DIRECT refused", 0, 0, 0) {
		struct gf_ckpt_opts o = { .struct_size = sizeof(struct gf_ckpt_opts), .direct = true };
		struct gf_io_fault f = { .op = GF_IO_WRITE, .err = -EINVAL, .cut = -1, .off = 0, .len = 1,
					 .count = 1 };

		gf_io_fault_clear();
		/* ramfs never had O_DIRECT: nothing to refuse. */
		if (fs->kind != T_RAMFS)
			assert_int_equal(gf_io_fault_add(&f), 0);
		assert_int_equal(gf_io_write_file_atomic(io, t_path(fs, "t.bin"), data, size, &o), 0);
		assert_int_equal(gf_io_fault_fired(), fs->kind == T_RAMFS ? 0 : 1);
		check_ckpt(fs, "t.bin", size, 14, 0644);
		gf_io_fault_clear();
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
}
T_FS_TESTS(direct_refused);

/* Bounded dirty pages (buffered, on a disk): while a checkpoint is still
 * being written, the windows written long ago have been written back and
 * dropped from the page cache, so a checkpoint larger than memory does not
 * fill it.  Checked with mincore() on the temp file before commit. */
static size_t resident_pages(const char *path, size_t from, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char *vec;
	size_t pg = 4096, n = len / pg, count = 0;
	void *p;

	assert_true(fd >= 0);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)from);
	assert_true(p != MAP_FAILED);
	vec = calloc(n, 1);
	assert_non_null(vec);
	assert_int_equal(mincore(p, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		count += vec[i] & 1;
	free(vec);
	munmap(p, len);
	close(fd);
	return count;
}

static void dirty_bounded(struct t_fs *fs)
{
	struct gf_ckpt_opts o = { .struct_size = sizeof(struct gf_ckpt_opts), .dirty_limit = 2 * MiB };
	uint8_t *data = malloc(16 * MiB);
	char tmp[PATH_MAX];
	struct gf_ckpt *c;
	struct gf_io *io;
	DIR *d;
	struct dirent *e;

	t_fs_need(fs);
	if (fs->kind != T_DISK) {
		free(data);
		skip();	/* tmpfs and ramfs pages are the file: nothing to drop */
	}
	assert_non_null(data);
	t_fill(data, 16 * MiB, 0, 9);
	T_FOR_EACH_BACKEND(fs, io, "dirty pages stay bounded", 8, 0, 0) {
		assert_int_equal(gf_ckpt_open(io, t_path(fs, "big"), &o, &c), 0);
		assert_int_equal(gf_ckpt_write(c, data, 16 * MiB), 0);
		tmp[0] = '\0';
		d = opendir(fs->base);
		assert_non_null(d);
		while ((e = readdir(d)))
			if (strstr(e->d_name, "big.tmp-"))
				snprintf(tmp, sizeof(tmp), "%s/%s", fs->base, e->d_name);
		closedir(d);
		assert_true(tmp[0]);
		/* The first 8 MiB were written four windows ago: dropped. */
		assert_int_equal(resident_pages(tmp, 0, 8 * MiB), 0);
		assert_int_equal(gf_ckpt_commit(c), 0);
		check_ckpt(fs, "big", 16 * MiB, 9, 0644);
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
	free(data);
}
T_FS_TESTS(dirty_bounded);

/* What another process does while a checkpoint is written: put its own
 * file at the target path (renamed over it, or new where there was none). */
static const char *race_dir;

static void someone_moves_a_file_there(const char *path)
{
	char other[PATH_MAX];

	t_write(race_dir, "theirs.tmp", "precious");
	snprintf(other, sizeof(other), "%s/theirs.tmp", race_dir);
	if (rename(other, path))
		fail_msg("rename %s: %s", path, strerror(errno));
}

/* The final swap replaces only the file that was there at open (or
 * nothing): a file moved onto the path meanwhile stays, the commit says
 * so, and no temp file is left; with and without the rename flags. */
static void moved_onto_target(struct t_fs *fs)
{
	uint8_t data[5000];
	struct gf_io *io;

	t_fill(data, sizeof(data), 0, 21);
	race_dir = fs->base;
	T_FOR_EACH_BACKEND(fs, io, "checkpoint swap race", 0, 0, 0) {
		for (int flags = 0; flags < 2; flags++) {
			const char *path = t_path(fs, "ck.bin");
			struct gf_ckpt_opts o = GF_CKPT_OPTS_INIT;

			gf_ckpt_no_rename_flags = flags == 0;
			/* The path existed at open: an old checkpoint. */
			t_write(fs->base, "ck.bin", "old");
			gf_ckpt_before_swap = someone_moves_a_file_there;
			assert_int_equal(gf_io_write_file_atomic(io, path, data, sizeof(data), &o), -EEXIST);
			assert_true(t_contains(gf_last_error(), "ck.bin"));
			t_check_kept(fs, "ck.bin", "precious");
			/* The path was free at open. */
			assert_int_equal(unlink(path), 0);
			assert_int_equal(gf_io_write_file_atomic(io, path, data, sizeof(data), &o), -EEXIST);
			t_check_kept(fs, "ck.bin", "precious");
			/* Nobody in the way: the old file is replaced, as always. */
			gf_ckpt_before_swap = NULL;
			assert_int_equal(gf_io_write_file_atomic(io, path, data, sizeof(data), &o), 0);
			check_ckpt(fs, "ck.bin", sizeof(data), 21, 0644);
			assert_int_equal(t_count_names(fs->base, "theirs"), 0);
			assert_int_equal(unlink(path), 0);
			assert_int_equal(gf_io_write_file_atomic(io, path, data, sizeof(data), &o), 0);
			check_ckpt(fs, "ck.bin", sizeof(data), 21, 0644);
			/* Over the checkpoint just made: replaced. */
			assert_int_equal(gf_io_write_file_atomic(io, path, data, sizeof(data), &o), 0);
		}
		gf_ckpt_no_rename_flags = false;
		assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	}
}
T_FS_TESTS(moved_onto_target);

/* A path that is not a regular file is never renamed over: a symlink is
 * followed (its target replaced, the link kept); a link to nothing, a FIFO
 * or a device is refused and left as it is. */
static void test_not_regular_targets(void **state)
{
	char *dir = t_mkdtemp(), path[4096];
	struct gf_io *io = t_io_open(GF_IO_PSYNC, 4, 1, 0);
	uint8_t data[100];
	struct stat st;

	(void)state;
	t_fill(data, sizeof(data), 0, 5);
	t_write(dir, "target.bin", "old");
	t_symlink(dir, "link.bin", "target.bin");
	snprintf(path, sizeof(path), "%s/link.bin", dir);
	assert_int_equal(gf_io_write_file_atomic(io, path, data, sizeof(data), NULL), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	snprintf(path, sizeof(path), "%s/target.bin", dir);
	t_check_file(path, sizeof(data), 5);

	t_symlink(dir, "dangling.bin", "nowhere.bin");
	snprintf(path, sizeof(path), "%s/dangling.bin", dir);
	assert_int_equal(gf_io_write_file_atomic(io, path, data, sizeof(data), NULL), -ENOENT);
	assert_true(t_contains(gf_last_error(), "a symbolic link to a missing file"));
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	snprintf(path, sizeof(path), "%s/nowhere.bin", dir);
	assert_int_not_equal(lstat(path, &st), 0);

	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(gf_io_write_file_atomic(io, path, data, sizeof(data), NULL), -EINVAL);
	assert_true(t_contains(gf_last_error(), "not a regular file"));
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));

	snprintf(path, sizeof(path), "%s/null", dir);
	if (mknod(path, S_IFCHR | 0666, makedev(1, 3)) == 0) {	/* a copy of /dev/null (root) */
		assert_int_equal(gf_io_write_file_atomic(io, path, data, sizeof(data), NULL), -EINVAL);
		assert_int_equal(lstat(path, &st), 0);
		assert_true(S_ISCHR(st.st_mode));
	}
	assert_int_equal(t_count_names(dir, ".tmp-"), 0);
	assert_int_equal(gf_io_close(io, GF_IO_DRAIN), 0);
	t_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T_FS_CASES(sizes_and_modes),
		T_FS_CASES(failures),
		T_FS_CASES(direct_refused),
		T_FS_CASES(dirty_bounded),
		T_FS_CASES(moved_onto_target),
		cmocka_unit_test(test_not_regular_targets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
