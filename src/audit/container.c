/* Are we inside a container?  The signs container runtimes leave, read
 * through the fs so a recording made inside a container replays as one:
 *   /proc/1/cgroup naming docker, kubepods, containerd, crio or lxc;
 *   /proc/1/environ's container= (systemd's convention: lxc, podman, ...);
 *   /run/.containerenv (Podman, CRI-O);
 *   /.dockerenv (Docker), but only with the mounts a container has: a root
 *   file system of overlay (or aufs, fuse-overlayfs) or a /dev that is not
 *   devtmpfs.  A VM booted from a Docker image keeps /.dockerenv on a real
 *   disk with the kernel's devtmpfs (the CI machine is such a VM, and
 *   systemd-detect-virt wrongly calls it "docker").
 * KUBERNETES_SERVICE_HOST in our environment is not used: it leaks into
 * host processes through scripts. */
#include <stdlib.h>
#include <string.h>

#include "core/strutil.h"
#include "audit/audit_internal.h"

static bool cgroup_kind(const char *text, char *kind, size_t size)
{
	static const char *const words[][2] = {
		{ "kubepods", "kubernetes" }, { "docker", "docker" }, { "libpod", "podman" },
		{ "crio", "cri-o" },	      { "containerd", "containerd" }, { "lxc", "lxc" },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(text, words[i][0])) {
			gf_strlcpy(kind, words[i][1], size);
			return true;
		}
	return false;
}

/* The file system type of the mount at `mnt` in /proc/self/mountinfo
 * (the last one listed wins: it is the one on top). */
static bool mount_type(const struct gf_fs *fs, const char *mnt, char *type, size_t size)
{
	char *data = NULL, *line, *save = NULL;
	size_t len;
	bool found = false;

	if (gf_fs_read(fs, "/proc/self/mountinfo", &data, &len))
		return false;
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char point[512], fstype[64];
		const char *sep = strstr(line, " - ");

		/* id parent major:minor root mount-point ... - fstype source opts */
		if (!sep || sscanf(line, "%*s %*s %*s %*s %511s", point) != 1 ||
		    sscanf(sep + 3, "%63s", fstype) != 1 || strcmp(point, mnt))
			continue;
		gf_strlcpy(type, fstype, size);
		found = true;
	}
	free(data);
	return found;
}

static bool container_mounts(const struct gf_fs *fs)
{
	char type[64];

	if (mount_type(fs, "/", type, sizeof(type)) &&
	    (!strcmp(type, "overlay") || !strcmp(type, "aufs") || !strcmp(type, "fuse.fuse-overlayfs")))
		return true;
	return mount_type(fs, "/dev", type, sizeof(type)) && strcmp(type, "devtmpfs");
}

bool gf_audit_detect_container(const struct gf_fs *fs, char *kind, size_t size)
{
	char *data = NULL;
	size_t len;
	bool found = false;

	kind[0] = '\0';
	if (gf_fs_read(fs, "/proc/1/cgroup", &data, &len) == 0) {
		found = cgroup_kind(data, kind, size);
		free(data);
		data = NULL;
	}
	if (!found && gf_fs_read(fs, "/proc/1/environ", &data, &len) == 0) {
		for (size_t off = 0; off < len; off += strlen(data + off) + 1)
			if (gf_starts_with(data + off, "container=") && data[off + 10]) {
				gf_strlcpy(kind, data + off + 10, size);
				found = true;
				break;
			}
		free(data);
		data = NULL;
	}
	if (!found && gf_fs_exists(fs, "/.dockerenv") && container_mounts(fs)) {
		gf_strlcpy(kind, "docker", size);
		found = true;
	}
	if (!found && gf_fs_exists(fs, "/run/.containerenv")) {
		gf_strlcpy(kind, "podman", size);
		found = true;
	}
	return found;
}
