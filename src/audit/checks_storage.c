/* Storage and file-system checks, /dev/shm's size among them (docs/checks.md,
 * "Storage and file systems", which names each one's public source).
 *
 * Block-queue checks look at the whole disks of the model (t->blocks) and
 * skip virtual devices (loop, zram, dm, md): they have no queue of their
 * own worth tuning, and their I/O lands on a real disk checked here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include <gpufeed/record.h>
#include "core/strutil.h"
#include "audit/audit_internal.h"

/* ---- block devices ---- */

/* Disks whose scheduling belongs elsewhere: NVMe (per-CPU hardware queues)
 * and paravirtual disks (the host schedules; the guest should not). */
static bool is_virtio(const struct gf_block *b)
{
	return gf_starts_with(b->name, "vd") || gf_starts_with(b->name, "xvd");
}

static bool is_data_disk(const struct gf_block *b)
{
	return !b->virtual_dev && !b->removable;
}

static void queue_path(char *buf, size_t size, const struct gf_block *b, const char *attr)
{
	snprintf(buf, size, "/sys/class/block/%s/queue/%s", b->name, attr);
}

/* Reads one integer queue attribute; a failure sets r's status. */
static int queue_ll(struct gf_audit_ctx *c, struct gf_check_result *r, const struct gf_block *b, const char *attr,
		    long long *v)
{
	char path[256];

	queue_path(path, sizeof(path), b, attr);
	return audit_read_ll(c, r, path, v);
}

/* The persist line gpufeed writes for a queue attribute of one disk. */
static void udev_line(char *buf, size_t size, const char *kernel, const char *attr, const char *value)
{
	snprintf(buf, size, "ACTION==\"add|change\", SUBSYSTEM==\"block\", KERNEL==\"%s\", ATTR{queue/%s}=\"%s\"",
		 kernel, attr, value);
}

static void run_scheduler(struct gf_audit_ctx *c)
{
	int n = 0;

	for (int i = 0; i < c->t->nblocks; i++) {
		const struct gf_block *b = &c->t->blocks[i];
		struct gf_check_result *r;
		char path[256], text[128], sel[32], line[256];

		if (!is_data_disk(b) || (!b->nvme && !is_virtio(b)))
			continue;
		n++;
		r = audit_result(c, b->name);
		queue_path(path, sizeof(path), b, "scheduler");
		if (audit_read_str(c, r, path, text, sizeof(text)))
			continue;
		audit_selected(text, sel, sizeof(sel));
		audit_observed(r, "%s", text);
		audit_expected(r, "[none]");
		if (!strcmp(sel, "none"))
			continue;
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, b->nvme ? "%s spends CPU per request on a device with per-CPU hardware queues"
				      : "%s in a guest reorders what the host's scheduler reorders again",
			   sel);
		/* Every NVMe (or virtio) disk wants it, whatever its number. */
		udev_line(line, sizeof(line), b->nvme ? "nvme[0-9]*n[0-9]*" : is_virtio(b) && b->name[0] == 'x' ?
			  "xvd[a-z]*" : "vd[a-z]*", "scheduler", "none");
		audit_safe_fix(r, path, "none", GF_PERSIST_UDEV, line);
	}
	if (!n)
		audit_na(audit_result(c, ""), "no NVMe or virtio disk here");
}

static void run_read_ahead(struct gf_audit_ctx *c)
{
	int n = 0;

	for (int i = 0; i < c->t->nblocks; i++) {
		const struct gf_block *b = &c->t->blocks[i];
		struct gf_check_result *r;
		char path[256], line[256];
		long long kb;

		if (!is_data_disk(b))
			continue;
		n++;
		r = audit_result(c, b->name);
		if (queue_ll(c, r, b, "read_ahead_kb", &kb))
			continue;
		audit_observed(r, "%lld KiB", kb);
		if (c->profile == GF_PROFILE_INFERENCE) {
			/* Weights are read once at start-up; serving does
			 * small random reads a large window only wastes. */
			audit_expected(r, "the default (128 KiB) is fine for inference");
			continue;
		}
		audit_expected(r, ">= 4096 KiB");
		if (kb >= 4096)
			continue;
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "datasets and checkpoints are read sequentially: a small window means more, smaller "
			      "requests");
		queue_path(path, sizeof(path), b, "read_ahead_kb");
		udev_line(line, sizeof(line), b->name, "read_ahead_kb", "4096");
		audit_safe_fix(r, path, "4096", GF_PERSIST_UDEV, line);
	}
	if (!n)
		audit_na(audit_result(c, ""), "no disk here (only virtual block devices)");
}

/* max_sectors_kb below the kernel's usual 512+ KiB (someone lowered it):
 * every large checkpoint read or write is split into small requests. */
static void run_max_sectors(struct gf_audit_ctx *c)
{
	int n = 0;

	for (int i = 0; i < c->t->nblocks; i++) {
		const struct gf_block *b = &c->t->blocks[i];
		struct gf_check_result *r;
		char path[256], line[256], val[32];
		long long kb, hw, floor_kb, want;

		if (!is_data_disk(b) || !b->nvme)
			continue;
		n++;
		r = audit_result(c, b->name);
		if (queue_ll(c, r, b, "max_sectors_kb", &kb) || queue_ll(c, r, b, "max_hw_sectors_kb", &hw))
			continue;
		floor_kb = hw < 512 ? hw : 512;
		want = hw < 1280 ? hw : 1280;	/* the kernel's own default cap */
		audit_source(r, "/sys/class/block/%s/queue/{max_sectors_kb,max_hw_sectors_kb}", b->name);
		audit_observed(r, "%lld KiB (device limit %lld KiB)", kb, hw);
		audit_expected(r, ">= %lld KiB", floor_kb);
		if (kb >= floor_kb)
			continue;
		audit_status(r, GF_CHECK_WARN);
		snprintf(val, sizeof(val), "%lld", want);
		queue_path(path, sizeof(path), b, "max_sectors_kb");
		udev_line(line, sizeof(line), b->name, "max_sectors_kb", val);
		audit_safe_fix(r, path, val, GF_PERSIST_UDEV, line);
	}
	if (!n)
		audit_na(audit_result(c, ""), "no NVMe disk here");
}

/* Direct I/O from ordinary 4 KiB pages costs one segment per page (pages
 * that happen to be physically contiguous merge, but nothing promises it):
 * a request larger than max_segments pages is split however large
 * max_sectors_kb is.  Nothing here can be tuned (max_segments is the
 * driver's); the finding is for whoever allocates the read buffers. */
#define DIO_PAGE_KB 4LL
#define DIO_LARGE_KB 1024LL	/* the 1 MiB reads datasets and checkpoints use */

static void run_dio_segments(struct gf_audit_ctx *c)
{
	int n = 0;

	for (int i = 0; i < c->t->nblocks; i++) {
		const struct gf_block *b = &c->t->blocks[i];
		struct gf_check_result *r;
		long long segs, kb, page_limit, want, parts;

		if (!is_data_disk(b))
			continue;
		n++;
		r = audit_result(c, b->name);
		if (queue_ll(c, r, b, "max_segments", &segs) || queue_ll(c, r, b, "max_sectors_kb", &kb))
			continue;
		if (segs <= 0 || kb <= 0) {
			audit_error(r, "/sys/class/block/%s/queue: max_segments %lld, max_sectors_kb %lld", b->name,
				    segs, kb);
			continue;
		}
		audit_source(r, "/sys/class/block/%s/queue/{max_segments,max_sectors_kb}", b->name);
		page_limit = segs * DIO_PAGE_KB;
		want = kb < DIO_LARGE_KB ? kb : DIO_LARGE_KB;
		audit_observed(r, "%lld KiB per request from 4 KiB pages (%lld segments), up to %lld KiB (max_sectors_kb) from huge pages",
			       page_limit, segs, kb);
		audit_expected(r, ">= %lld KiB from 4 KiB pages", want);
		if (page_limit >= want)
			continue;
		parts = (DIO_LARGE_KB + page_limit - 1) / page_limit;
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "a 1 MiB O_DIRECT read from a 4 KiB-page buffer is split into %lld requests on %s; "
			      "read into huge-page buffers (gpufeed's engine does; fio --iomem=shmhuge)",
			   parts, b->name);
	}
	if (!n)
		audit_na(audit_result(c, ""), "no disk here (only virtual block devices)");
}

/* With scheduler none, nr_requests is the per-queue depth the driver
 * allows; the kernel sets it to the hardware's tag count (mq/0/nr_tags). */
static void run_nr_requests(struct gf_audit_ctx *c)
{
	int n = 0;

	for (int i = 0; i < c->t->nblocks; i++) {
		const struct gf_block *b = &c->t->blocks[i];
		struct gf_check_result *r;
		char path[256], text[128], sel[32], line[256], val[32];
		long long nr, tags;

		if (!is_data_disk(b) || !b->nvme)
			continue;
		n++;
		r = audit_result(c, b->name);
		queue_path(path, sizeof(path), b, "scheduler");
		if (audit_read_str(c, r, path, text, sizeof(text)))
			continue;
		audit_selected(text, sel, sizeof(sel));
		if (strcmp(sel, "none")) {
			audit_na(r, "scheduler %s sizes its own queue (see storage.nvme-scheduler)", sel);
			continue;
		}
		if (r)
			r->source[0] = '\0';	/* the queue files, named below */
		if (queue_ll(c, r, b, "nr_requests", &nr))
			continue;
		snprintf(path, sizeof(path), "/sys/class/block/%s/mq/0/nr_tags", b->name);
		if (audit_read_ll(c, r, path, &tags))
			continue;
		audit_source(r, "/sys/class/block/%s/queue/nr_requests, %s", b->name, path);
		audit_observed(r, "%lld (hardware queue depth %lld)", nr, tags);
		audit_expected(r, "%lld (the hardware queue depth)", tags);
		if (nr >= tags)
			continue;
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "a lowered depth caps the parallel reads a data loader can keep in flight");
		snprintf(val, sizeof(val), "%lld", tags);
		queue_path(path, sizeof(path), b, "nr_requests");
		udev_line(line, sizeof(line), b->name, "nr_requests", val);
		audit_safe_fix(r, path, val, GF_PERSIST_UDEV, line);
	}
	if (!n)
		audit_na(audit_result(c, ""), "no NVMe disk here");
}

/* ---- mounts (/proc/self/mountinfo) ---- */

struct mount {
	char point[256];	/* unescaped (\040 -> ' ') */
	char opts[256];		/* per-mount: "rw,relatime" */
	char fstype[32];
	char source[128];
	char super[512];	/* per-superblock: "rw,size=65536k" */
};

static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
		    s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* One line: "id parent maj:min root point opts [optional...] - type source super". */
static bool parse_mount(const char *line, struct mount *m)
{
	const char *sep = strstr(line, " - ");

	memset(m, 0, sizeof(*m));
	if (!sep || sscanf(line, "%*s %*s %*s %*s %255s %255s", m->point, m->opts) != 2 ||
	    sscanf(sep + 3, "%31s %127s %511s", m->fstype, m->source, m->super) < 2)
		return false;
	unescape(m->point);
	return true;
}

/* All mounts, in mountinfo order (later ones are on top); NULL and a
 * status on r when unreadable. */
static struct mount *read_mounts(struct gf_audit_ctx *c, struct gf_check_result *r, int *n)
{
	char *data = NULL, *line, *save = NULL;
	struct mount *v = NULL, *grown;
	size_t len;
	int cap = 0;

	*n = 0;
	if (audit_read(c, r, "/proc/self/mountinfo", &data, &len))
		return NULL;
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			if (!(grown = realloc(v, (size_t)cap * sizeof(*v))))
				break;
			v = grown;
		}
		if (parse_mount(line, &v[*n]))
			(*n)++;
	}
	free(data);
	if (!v)	/* empty file or no memory: nothing to report, not an error */
		v = calloc(1, sizeof(*v));
	return v;
}

/* Option `key` of a comma-separated list: true and its value ("" for a
 * flag) in out. */
static bool opt_find(const char *opts, const char *key, char *out, size_t size)
{
	size_t kl = strlen(key);

	for (const char *p = opts; *p;) {
		size_t n = strcspn(p, ",");

		if (n >= kl && !strncmp(p, key, kl) && (n == kl || p[kl] == '=')) {
			size_t vl = n > kl ? n - kl - 1 : 0;

			if (out && size) {
				if (vl >= size)
					vl = size - 1;
				memcpy(out, p + kl + (n > kl), vl);
				out[vl] = '\0';
			}
			return true;
		}
		p += n + (p[n] == ',');
	}
	return false;
}

/* True when a later mount hides mount i (the same mount point on top). */
static bool hidden(const struct mount *m, int n, int i)
{
	for (int j = i + 1; j < n; j++)
		if (!strcmp(m[j].point, m[i].point))
			return true;
	return false;
}

/* File systems that hold datasets and checkpoints on a local disk. */
static bool disk_fs(const char *t)
{
	static const char *const fs[] = { "ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "zfs", "bcachefs", NULL };

	for (int i = 0; fs[i]; i++)
		if (!strcmp(t, fs[i]))
			return true;
	return false;
}

static bool nfs_fs(const char *t)
{
	return !strcmp(t, "nfs") || !strcmp(t, "nfs4");
}

/* strictatime (neither noatime nor relatime): every read of a dataset
 * file becomes an inode write. */
static void run_atime(struct gf_audit_ctx *c)
{
	struct gf_check_result *head = audit_result(c, "");
	struct mount *m;
	int n, checked = 0;

	if (!(m = read_mounts(c, head, &n)))
		return;
	for (int i = 0; i < n; i++) {
		struct gf_check_result *r;

		if ((!disk_fs(m[i].fstype) && !nfs_fs(m[i].fstype)) || hidden(m, n, i) ||
		    opt_find(m[i].opts, "ro", NULL, 0))
			continue;
		/* The first mount reuses the host-level result. */
		r = checked++ ? audit_result(c, m[i].point) : head;
		if (r == head && r)
			gf_strlcpy(r->subject, m[i].point, sizeof(r->subject));
		audit_source(r, "/proc/self/mountinfo (%s)", m[i].point);
		audit_observed(r, "%s on %s: %s", m[i].fstype, m[i].point, m[i].opts);
		audit_expected(r, "noatime or relatime");
		if (opt_find(m[i].opts, "noatime", NULL, 0) || opt_find(m[i].opts, "relatime", NULL, 0))
			continue;
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "strictatime: every read updates the inode");
		audit_fix(r, "mount -o remount,noatime %s", m[i].point);
		audit_persist(r, "add noatime to the options of %s in /etc/fstab", m[i].point);
		r->fix_class = GF_FIX_ADVICE;
	}
	if (!checked)
		audit_na(head, "no writable disk or NFS file system mounted");
	free(m);
}

/* Size option of NFS ("rsize=1048576") in bytes, 0 when absent. */
static long long opt_ll(const char *opts, const char *key)
{
	char v[32];
	long long x;

	return opt_find(opts, key, v, sizeof(v)) && !gf_parse_ll(v, &x) ? x : 0;
}

static void append(char *buf, size_t size, const char *fmt, const char *what)
{
	size_t l = strlen(buf);

	snprintf(buf + l, size - l, fmt, l ? "; " : "", what);
}

/* One NFS mount: its problems in `bad`, the worst status returned. */
static enum gf_check_status nfs_problems(const struct gf_audit_ctx *c, const struct mount *m, char *bad,
					 size_t size)
{
	enum gf_check_status s = GF_CHECK_PASS;
	char proto[16] = "", tmp[64];
	long long rs = opt_ll(m->super, "rsize"), ws = opt_ll(m->super, "wsize"), nc = opt_ll(m->super, "nconnect");

	bad[0] = '\0';
	opt_find(m->super, "proto", proto, sizeof(proto));
	if (!strcmp(proto, "udp") || !strcmp(proto, "udp6")) {
		append(bad, size, "%s%s", "proto=udp (at most 32 KiB a request, no congestion control)");
		s = GF_CHECK_FAIL;
	}
	if ((rs && rs < 1048576) || (ws && ws < 1048576)) {
		snprintf(tmp, sizeof(tmp), "rsize=%lld wsize=%lld below 1 MiB", rs, ws);
		append(bad, size, "%s%s", tmp);
		if (s < GF_CHECK_WARN)
			s = GF_CHECK_WARN;
	}
	/* One TCP connection caps a mount at one flow's throughput; RDMA has
	 * its own parallelism.  Inference reads weights once: a note. */
	if (nc <= 1 && strncmp(proto, "rdma", 4) && c->profile == GF_PROFILE_TRAINING) {
		append(bad, size, "%s%s", "no nconnect (one TCP connection)");
		if (s < GF_CHECK_WARN)
			s = GF_CHECK_WARN;
	}
	return s;
}

static void run_nfs(struct gf_audit_ctx *c)
{
	struct gf_check_result *head = audit_result(c, "");
	struct mount *m;
	int n, found = 0;

	if (!(m = read_mounts(c, head, &n)))
		return;
	for (int i = 0; i < n; i++) {
		struct gf_check_result *r;
		char bad[256];
		enum gf_check_status s;

		if (!nfs_fs(m[i].fstype) || hidden(m, n, i))
			continue;
		r = found++ ? audit_result(c, m[i].point) : head;
		if (r)
			gf_strlcpy(r->subject, m[i].point, sizeof(r->subject));
		audit_source(r, "/proc/self/mountinfo (%s)", m[i].point);
		audit_observed(r, "%s", m[i].super);
		audit_expected(r, c->profile == GF_PROFILE_TRAINING ? "proto=tcp or rdma, rsize=wsize=1048576, nconnect>1"
								      : "proto=tcp or rdma, rsize=wsize=1048576");
		s = nfs_problems(c, &m[i], bad, sizeof(bad));
		if (s == GF_CHECK_PASS)
			continue;
		audit_status(r, s);
		audit_note(r, "%s", bad);
		audit_fix(r, "umount %s; mount -o proto=tcp,rsize=1048576,wsize=1048576,nconnect=8 %s %s", m[i].point,
			  m[i].source, m[i].point);
		audit_persist(r, "the same options for %s in /etc/fstab (or the automounter map)", m[i].point);
		r->fix_class = GF_FIX_ADVICE;
	}
	if (!found)
		audit_na(head, "no NFS mount");
	free(m);
}

/* ---- /dev/shm ---- */

/* tmpfs "size=24684084k" (the kernel prints KiB; k/m/g or bytes accepted). */
static bool tmpfs_size(const char *super, unsigned long long *bytes)
{
	char v[32], *end;
	unsigned long long x;

	if (!opt_find(super, "size", v, sizeof(v)) || !v[0])
		return false;
	x = strtoull(v, &end, 10);
	switch (*end) {
	case 'k': case 'K': x <<= 10; end++; break;
	case 'm': case 'M': x <<= 20; end++; break;
	case 'g': case 'G': x <<= 30; end++; break;
	default: break;
	}
	if (*end)
		return false;
	*bytes = x;
	return true;
}

/* The size statvfs saw when the recording was made. */
static bool manifest_shm(struct gf_audit_ctx *c, unsigned long long *bytes)
{
	char *data = NULL;
	size_t len;
	json_t *root, *v;
	bool ok = false;

	if (c->live || gf_fs_read(&c->fs, "/" GF_RECORD_MANIFEST, &data, &len))
		return false;
	if ((root = json_loadb(data, len, 0, NULL)) && json_is_integer(v = json_object_get(root, "dev_shm_bytes")) &&
	    json_integer_value(v) > 0) {
		*bytes = (unsigned long long)json_integer_value(v);
		ok = true;
	}
	json_decref(root);
	free(data);
	return ok;
}

/* A tmpfs mounted without size= gets half of RAM (mm/shmem.c). */
static bool half_ram(struct gf_audit_ctx *c, unsigned long long *bytes)
{
	char *data = NULL, v[64];
	size_t len;
	unsigned long long kb = 0;
	bool ok;

	if (gf_fs_read(&c->fs, "/proc/meminfo", &data, &len))
		return false;
	ok = gf_kv_find(data, "MemTotal", v, sizeof(v)) && sscanf(v, "%llu", &kb) == 1 && kb;
	free(data);
	*bytes = kb * 1024 / 2;
	return ok;
}

/* The mount /dev/shm lives on: the longest mount point that is a prefix
 * of it, the last such (on top).  -1 when none. */
static int shm_mount(const struct mount *m, int n)
{
	int best = -1;
	size_t blen = 0;

	for (int i = 0; i < n; i++) {
		size_t l = strlen(m[i].point);

		if (strncmp("/dev/shm", m[i].point, l) || (l > 1 && "/dev/shm"[l] && "/dev/shm"[l] != '/'))
			continue;
		if (l >= blen) {
			best = i;
			blen = l;
		}
	}
	return best;
}

static void shm_verdict(struct gf_check_result *r, unsigned long long bytes, bool container)
{
	audit_expected(r, ">= 1 GiB");
	if (bytes >= (1ull << 30))
		return;
	audit_status(r, bytes < (256ull << 20) ? GF_CHECK_FAIL : GF_CHECK_WARN);
	audit_note(r, "NCCL's shared-memory transport and DataLoader workers allocate here "
		      "('failed to extend /dev/shm', bus errors)");
	if (container) {
		audit_fix(r, "restart the container with --shm-size=16g (Kubernetes: an emptyDir "
			     "{medium: Memory} mounted at /dev/shm)");
		audit_persist(r, "the container's run options or the pod spec");
	} else {
		audit_fix(r, "mount -o remount,size=16G /dev/shm");
		audit_persist(r, "'tmpfs /dev/shm tmpfs defaults,size=16G 0 0' in /etc/fstab");
	}
	r->fix_class = GF_FIX_ADVICE;
}

static void run_dev_shm(struct gf_audit_ctx *c)
{
	struct gf_check_result *r = audit_result(c, "/dev/shm");
	unsigned long long bytes = 0;
	struct mount *m;
	int n, i;

	if (!(m = read_mounts(c, r, &n)))
		return;
	if ((i = shm_mount(m, n)) < 0 || (strcmp(m[i].fstype, "tmpfs") && strcmp(m[i].fstype, "devtmpfs"))) {
		audit_observed(r, i < 0 ? "no mount holds /dev/shm" : "/dev/shm is on %s (%s), not tmpfs",
			       i < 0 ? "" : m[i].point, i < 0 ? "" : m[i].fstype);
		audit_expected(r, "a tmpfs of >= 1 GiB");
		audit_status(r, GF_CHECK_WARN);
		audit_note(r, "POSIX shared memory (NCCL, DataLoader) wants a tmpfs at /dev/shm");
		free(m);
		return;
	}
	if (tmpfs_size(m[i].super, &bytes)) {
		audit_source(r, "/proc/self/mountinfo (%s size=)", m[i].point);
	} else if (manifest_shm(c, &bytes)) {
		audit_source(r, GF_RECORD_MANIFEST " dev_shm_bytes (statvfs when recorded)");
	} else if (half_ram(c, &bytes)) {
		audit_source(r, "/proc/self/mountinfo (no size=), /proc/meminfo MemTotal / 2");
	} else {
		audit_error(r, "the size of %s is not in its mount options and /proc/meminfo is unreadable",
			    m[i].point);
		free(m);
		return;
	}
	audit_observed(r, "%s on %s, %.2f GiB", m[i].fstype, m[i].point, (double)bytes / (1ull << 30));
	shm_verdict(r, bytes, c->container);
	free(m);
}

const struct gf_check_def gf_checks_storage[] = {
	{ { "storage.nvme-scheduler", "storage", "NVMe and virtio disks should use the none I/O scheduler",
	    "NVMe queues need no I/O scheduler; one adds CPU cost and latency; "
	    "docs/checks.md#storage.nvme-scheduler; "
	    "\"Queue sysfs files\", https://docs.kernel.org/block/queue-sysfs.html; "
	    "\"TuneD spectrumscale-ece profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/spectrumscale-ece/tuned.conf",
	    "/sys/class/block/<disk>/queue/scheduler", "none", "none",
	    "echo none > /sys/block/<disk>/queue/scheduler (safe); persist with a udev rule", 0 },
	  run_scheduler },
	{ { "storage.read-ahead", "storage", "read-ahead should suit streaming datasets and checkpoints",
	    "large read-ahead streams datasets and checkpoints in big requests; "
	    "docs/checks.md#storage.read-ahead; "
	    "\"Queue sysfs files\", https://docs.kernel.org/block/queue-sysfs.html; "
	    "\"TuneD accelerator-performance profile\", https://github.com/redhat-performance/tuned/blob/master/profiles/accelerator-performance/tuned.conf",
	    "/sys/class/block/<disk>/queue/read_ahead_kb", ">= 4096 KiB", "the default (128 KiB) is fine",
	    "echo 4096 > /sys/block/<disk>/queue/read_ahead_kb (safe); persist with a udev rule", 0 },
	  run_read_ahead },
	{ { "storage.max-sectors", "storage", "NVMe requests should not be capped below 512 KiB",
	    "a low request size cap splits large reads into many small ones; "
	    "docs/checks.md#storage.max-sectors; "
	    "\"Queue sysfs files\", https://docs.kernel.org/block/queue-sysfs.html",
	    "/sys/class/block/<disk>/queue/max_sectors_kb, max_hw_sectors_kb", ">= min(512, device limit) KiB",
	    ">= min(512, device limit) KiB",
	    "echo min(1280, max_hw_sectors_kb) > /sys/block/<disk>/queue/max_sectors_kb (safe); udev rule", 0 },
	  run_max_sectors },
	{ { "storage.dio-segments", "storage", "a 1 MiB direct read from 4 KiB pages should be one request",
	    "each 4 KiB page of a direct-I/O buffer takes a segment: past max_segments a request is split, "
	    "which huge-page buffers avoid; docs/checks.md#storage.dio-segments; "
	    "\"Queue sysfs files\", https://docs.kernel.org/block/queue-sysfs.html; "
	    "\"fio documentation (iomem=, mem=)\", https://fio.readthedocs.io/en/latest/fio_doc.html",
	    "/sys/class/block/<disk>/queue/max_segments, max_sectors_kb", ">= min(max_sectors_kb, 1024) KiB",
	    ">= min(max_sectors_kb, 1024) KiB",
	    "nothing to tune: read into huge-page buffers (MADV_HUGEPAGE, hugetlbfs, fio --iomem=shmhuge)", 0 },
	  run_dio_segments },
	{ { "storage.nr-requests", "storage", "NVMe queue depth should not be lowered below the hardware's",
	    "a queue depth below the hardware's limits parallel I/O; docs/checks.md#storage.nr-requests; "
	    "\"Queue sysfs files\", https://docs.kernel.org/block/queue-sysfs.html",
	    "/sys/class/block/<disk>/queue/nr_requests, /sys/class/block/<disk>/mq/0/nr_tags",
	    "= nr_tags (with scheduler none)", "= nr_tags (with scheduler none)",
	    "echo <nr_tags> > /sys/block/<disk>/queue/nr_requests (safe); udev rule", 0 },
	  run_nr_requests },
	{ { "storage.atime", "storage", "data file systems should be mounted noatime or relatime",
	    "access-time updates turn every read into a write; docs/checks.md#storage.atime; "
	    "\"mount(8)\", https://man7.org/linux/man-pages/man8/mount.8.html",
	    "/proc/self/mountinfo (mount options)", "noatime or relatime", "noatime or relatime",
	    "mount -o remount,noatime <mount>; add noatime in /etc/fstab", 0 },
	  run_atime },
	{ { "storage.nfs", "storage", "NFS mounts should use TCP/RDMA, 1 MiB transfers and several connections",
	    "small transfers and one TCP connection cap NFS throughput; docs/checks.md#storage.nfs; "
	    "\"nfs(5)\", https://man7.org/linux/man-pages/man5/nfs.5.html",
	    "/proc/self/mountinfo (nfs super options: proto, rsize, wsize, nconnect)",
	    "proto tcp or rdma, rsize=wsize=1 MiB, nconnect > 1", "proto tcp or rdma, rsize=wsize=1 MiB",
	    "remount with proto=tcp,rsize=1048576,wsize=1048576,nconnect=8; persist in /etc/fstab", 0 },
	  run_nfs },
	{ { "storage.dev-shm", "storage", "/dev/shm should be a tmpfs of at least 1 GiB",
	    "NCCL and DataLoader workers share memory through /dev/shm; Docker's default is 64 MB; "
	    "docs/checks.md#storage.dev-shm; "
	    "\"NCCL Troubleshooting: Runtime and MPI issues\", https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/runtime_and_mpi_issues.html; "
	    "\"docker container run (--ulimit, --shm-size)\", https://docs.docker.com/reference/cli/docker/container/run/",
	    "/proc/self/mountinfo (tmpfs size=), else the recording's dev_shm_bytes, else MemTotal / 2",
	    ">= 1 GiB", ">= 1 GiB", "mount -o remount,size=16G /dev/shm; fstab, --shm-size or an emptyDir", 0 },
	  run_dev_shm },
	GF_CHECK_END,
};
