/* The state directory: where the journal lives, and the lock (flock on the
 * directory itself, so nothing is left behind by the lock). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "core/error.h"
#include "core/strutil.h"
#include "tune/tune_internal.h"

/* mkdir -p of a machine path, each component made inside the root. */
static int make_dirs(const struct gf_fs *fs, const char *path, bool in_root)
{
	char sofar[PATH_MAX] = "", copy[PATH_MAX], *rest = copy, *name;

	gf_strlcpy(copy, path, sizeof(copy));
	while ((name = gf_path_next(&rest))) {
		char real[PATH_MAX];
		int fd, ret = 0;

		fd = in_root ? gf_fs_open(fs, sofar[0] ? sofar : "/", O_RDONLY | O_DIRECTORY)
			     : open(sofar[0] ? sofar : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			ret = -errno;
		else if (mkdirat(fd, name, 0755) && errno != EEXIST)
			ret = -errno;
		if (fd >= 0)
			close(fd);
		snprintf(sofar + strlen(sofar), sizeof(sofar) - strlen(sofar), "/%s", name);
		if (ret) {
			gf_fs_real(fs, sofar, real, sizeof(real));
			return gf_error_errno(ret, in_root ? real : sofar);
		}
	}
	return 0;
}

static int open_dir(struct tune_state *s, const char *state_dir, bool create)
{
	bool in_root = !state_dir;
	const char *dir = state_dir ? state_dir : GF_TUNE_STATE_DIR;
	int ret;

	s->own_dir = in_root;

	if (in_root)
		gf_fs_real(&s->fs, dir, s->dir, sizeof(s->dir));
	else
		gf_strlcpy(s->dir, dir, sizeof(s->dir));
	snprintf(s->journal, sizeof(s->journal), "%s/%s", s->dir, GF_TUNE_JOURNAL);
	if (create && (ret = make_dirs(&s->fs, dir, in_root)))
		return ret;
	s->dirfd = in_root ? gf_fs_open(&s->fs, dir, O_RDONLY | O_DIRECTORY)
			   : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dirfd < 0)
		return gf_error_errno(-errno, s->dir);
	return 0;
}

static int take_lock(struct tune_state *s)
{
	if (!flock(s->dirfd, LOCK_EX | LOCK_NB))
		return 0;
	if (errno == EWOULDBLOCK)
		return gf_error(-EBUSY, "%s is locked: another gpufeed tune or revert is running; try again when it ends",
				s->dir);
	return gf_error_errno(-errno, s->dir);
}

int tune_state_open(struct tune_state *s, const struct gf_tune_options *o, bool create, bool lock)
{
	struct gf_topo_options to;
	int ret;

	memset(s, 0, sizeof(*s));
	s->dirfd = s->jfd = -1;
	if ((ret = gf_topo_options_copy(o->machine, &to)) || (ret = gf_fs_init(&s->fs, to.root)))
		return ret;
	if (s->fs.unpacked[0]) {
		ret = gf_error(-EINVAL, "%s: tune writes into a recording directory, not into an archive", s->fs.root);
		gf_fs_fini(&s->fs);
		return ret;
	}
	if (!lock)
		return 0;
	if ((ret = open_dir(s, o->state_dir, create)) || (ret = take_lock(s))) {
		tune_state_close(s);
		return ret;
	}
	return 0;
}

void tune_state_close(struct tune_state *s)
{
	if (s->jfd >= 0)
		close(s->jfd);
	if (s->dirfd >= 0)
		close(s->dirfd);	/* releases the lock */
	s->jfd = s->dirfd = -1;
	gf_fs_fini(&s->fs);
}

void tune_state_durability(const struct tune_state *s, char *note, size_t size)
{
	struct statfs st;

	note[0] = '\0';
	if (s->dirfd < 0 || fstatfs(s->dirfd, &st))
		return;
	if (st.f_type == TMPFS_MAGIC || st.f_type == RAMFS_MAGIC)
		snprintf(note, size, "%s is on tmpfs: a reboot loses the journal (the runtime values reset too, "
			 "but revert can no longer remove --persist files)", s->dir);
}
