/* record --redact's replacing pass on small planted trees: every identity
 * goes from contents, names and link targets; one value gets one pseudonym
 * of the same shape; nothing beside it changes. */
#include "helpers.h"
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "record/record_redact.h"

#define MAC "0c:42:a1:9b:3e:5f"
#define GUID "0c42:a103:009b:3e5f"
#define UUID "67bbd4e9-5f05-3d4a-2481-817764596fe9"
#define SERIAL "S4EWNX0R123456"

static char *at(const char *dir, const char *rel)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return path;
}

static void plant(const char *dir)
{
	const unsigned char config[8] = { 0x10, 0xde, 0x0c, 0x42, 0xa1, 0x9b, 0x3e, 0x5f };

	t_write(dir, "proc/sys/kernel/hostname", "gpu-node-17\n");
	t_write(dir, "sys/class/net/eth0/address", MAC "\n");
	t_write(dir, "sys/class/net/eth0/broadcast", "ff:ff:ff:ff:ff:ff\n");
	t_write(dir, "sys/class/net/lo/address", "00:00:00:00:00:00\n");
	t_write(dir, "sys/class/infiniband/mlx5_0/node_guid", GUID "\n");
	t_write(dir, "sys/class/infiniband/mlx5_0/node_desc", "gpu-node-17 mlx5_0\n");
	t_write(dir, "sys/class/nvme/nvme0/serial", SERIAL "      \n");
	t_write(dir, "sys/class/dmi/id/product_serial", "To Be Filled By O.E.M.\n");
	t_write(dir, "proc/driver/nvidia/gpus/0000:00:06.0/information",
		"Model: \t\t NVIDIA H200\nGPU UUID: \t GPU-" UUID "\nBus Location: \t 0000:00:06.0\n");
	t_write(dir, "nvml.json", "{\"gpus\": [{\"uuid\": \"GPU-" UUID "\", \"mig\": {\"instances\": "
		"[{\"uuid\": \"MIG-11112222-3333-4444-5555-666677778888\"}]}}]}\n");
	/* Copies elsewhere: upper case, a by-id name, a link target, a binary
	 * file, and words the host name is only part of. */
	t_write(dir, "etc/notes", "MAC " "0C:42:A1:9B:3E:5F" " on gpu-node-17; not gpu-node-170 nor xgpu-node-17\n");
	t_write(dir, "dev/disk/by-id/nvme-SAMSUNG_MZ1L2960_" SERIAL, "");
	t_symlink(dir, "dev/disk/by-uuid/link", "../by-id/nvme-SAMSUNG_MZ1L2960_" SERIAL);
	t_write_bytes(dir, "sys/bus/pci/devices/x/config", config, sizeof(config));
}

static void redacts_everywhere(void **state)
{
	char *dir = t_mkdtemp(), *s, target[PATH_MAX];
	struct gf_redact r;
	ssize_t n;
	FILE *p;
	char cmd[PATH_MAX + 128], line[512];

	(void)state;
	plant(dir);
	assert_int_equal(gf_redact_init(&r), 0);
	assert_int_equal(gf_redact_collect(&r, dir), 0);
	assert_int_equal(r.counts[GF_REDACT_HOSTNAME], 1);
	assert_int_equal(r.counts[GF_REDACT_MAC], 1);	/* not the all-zero, not broadcast */
	assert_int_equal(r.counts[GF_REDACT_SERIAL], 1);	/* not "To Be Filled By O.E.M." */
	assert_int_equal(r.counts[GF_REDACT_UUID], 2);	/* the GPU's (twice), the MIG's */
	assert_int_equal(r.counts[GF_REDACT_GUID], 1);
	assert_int_equal(gf_redact_apply(&r, dir), 0);

	/* No original is left in any file, name or link target. */
	snprintf(cmd, sizeof(cmd), "cd '%s' && { grep -r -i -l -E '%s|%s|%s|%s|11112222-3333' .; "
		 "find . | grep -i '%s'; grep -w -r -l 'gpu-node-17' .; } 2>&1", dir, MAC, GUID, UUID, SERIAL, SERIAL);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		fail_msg("an original remains: %s", line);
	pclose(p);

	/* Same length and shape; the same value got the same pseudonym. */
	s = t_read(at(dir, "sys/class/net/eth0/address"));
	assert_int_equal(strlen(s), strlen(MAC) + 1);
	for (size_t i = 0; i < strlen(MAC); i++)
		assert_true(i % 3 == 2 ? s[i] == ':' : isxdigit((unsigned char)s[i]) && !isupper((unsigned char)s[i]));
	assert_true((strtoul((char[]){ s[0], s[1], 0 }, NULL, 16) & 3) == 2);	/* local, unicast */
	{
		char *notes = t_read(at(dir, "etc/notes")), upper[32];

		for (size_t i = 0; i < strlen(MAC); i++)
			upper[i] = (char)toupper((unsigned char)s[i]);
		upper[strlen(MAC)] = '\0';
		assert_non_null(strstr(notes, upper));		/* case kept */
		assert_non_null(strstr(notes, "gpu-node-170"));	/* not a whole word: kept */
		assert_non_null(strstr(notes, "xgpu-node-17"));
		free(notes);
	}
	free(s);
	s = t_read(at(dir, "proc/sys/kernel/hostname"));
	assert_int_equal(strlen(s), strlen("gpu-node-17\n"));
	assert_true(s[3] == '-' && s[8] == '-');
	{
		char *desc = t_read(at(dir, "sys/class/infiniband/mlx5_0/node_desc"));

		assert_memory_equal(desc, s, strlen(s) - 1);	/* the host name, consistently */
		assert_string_equal(desc + strlen(s) - 1, " mlx5_0\n");
		free(desc);
	}
	free(s);
	{
		char *info = t_read(at(dir, "proc/driver/nvidia/gpus/0000:00:06.0/information"));
		char *nvml = t_read(at(dir, "nvml.json")), *u = strstr(info, "GPU-");

		assert_non_null(u);
		assert_non_null(strstr(nvml, (char[]){ u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], 0 }));
		assert_non_null(strstr(info, "Model: \t\t NVIDIA H200\n"));	/* the rest is untouched */
		free(info);
		free(nvml);
	}
	/* The by-id name and the link to it moved together. */
	n = readlink(at(dir, "dev/disk/by-uuid/link"), target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	{
		struct stat st;
		char to[PATH_MAX];

		snprintf(to, sizeof(to), "%s/dev/disk/by-uuid/%s", dir, target);
		assert_int_equal(stat(to, &st), 0);
	}
	/* Binary bytes beside a MAC's bytes are not a MAC: config space stays. */
	{
		FILE *f = fopen(at(dir, "sys/bus/pci/devices/x/config"), "rb");
		unsigned char b[16];

		assert_non_null(f);
		assert_int_equal(fread(b, 1, sizeof(b), f), 8);
		fclose(f);
		assert_int_equal(b[0], 0x10);
		assert_int_equal(b[7], 0x5f);
	}
	gf_redact_fini(&r);
	t_rmtree(dir);
	free(dir);
}

/* Two recordings get unrelated pseudonyms (a random key each): one cannot
 * be matched against another, nor a guessed serial hashed to its name. */
/* The Device Serial Number capability in config space: its 8 bytes change,
 * the bytes around them do not; a device without one is left as it is. */
static void config_space_serial(void **state)
{
	static const unsigned char dsn[8] = { 0x5f, 0x3e, 0x9b, 0xff, 0xfe, 0xa1, 0x42, 0x0c };
	unsigned char cfg[0x120], plain[0x120], back[0x120];
	char *dir = t_mkdtemp();
	struct gf_redact r;
	FILE *f;

	(void)state;
	memset(cfg, 0xab, sizeof(cfg));
	cfg[0x100] = 0x01; cfg[0x101] = 0x00; cfg[0x102] = 0x01; cfg[0x103] = 0x14;	/* AER -> 0x140 */
	memcpy(plain, cfg, sizeof(plain));
	cfg[0x103] = 0x11;	/* AER, next at 0x110 */
	cfg[0x110] = 0x03; cfg[0x111] = 0x00; cfg[0x112] = 0x01; cfg[0x113] = 0x00;	/* DSN, last */
	memcpy(cfg + 0x114, dsn, sizeof(dsn));
	t_write_bytes(dir, "sys/devices/pci0000:00/0000:00:02.0/config", cfg, sizeof(cfg));
	t_write_bytes(dir, "sys/devices/pci0000:00/0000:00:03.0/config", plain, sizeof(plain));
	assert_int_equal(gf_redact_init(&r), 0);
	assert_int_equal(gf_redact_collect(&r, dir), 0);
	assert_int_equal(r.counts[GF_REDACT_SERIAL], 1);
	assert_int_equal(gf_redact_apply(&r, dir), 0);
	f = fopen(at(dir, "sys/devices/pci0000:00/0000:00:02.0/config"), "rb");
	assert_non_null(f);
	assert_int_equal(fread(back, 1, sizeof(back), f), sizeof(back));
	fclose(f);
	assert_memory_not_equal(back + 0x114, dsn, sizeof(dsn));
	assert_memory_equal(back, cfg, 0x114);
	assert_memory_equal(back + 0x11c, cfg + 0x11c, sizeof(cfg) - 0x11c);
	f = fopen(at(dir, "sys/devices/pci0000:00/0000:00:03.0/config"), "rb");
	assert_non_null(f);
	assert_int_equal(fread(back, 1, sizeof(back), f), sizeof(back));
	fclose(f);
	assert_memory_equal(back, plain, sizeof(plain));
	gf_redact_fini(&r);
	t_rmtree(dir);
	free(dir);
}

static void keyed_per_recording(void **state)
{
	struct gf_redact a, b;

	(void)state;
	assert_int_equal(gf_redact_init(&a), 0);
	assert_int_equal(gf_redact_init(&b), 0);
	assert_int_equal(gf_redact_add(&a, GF_REDACT_SERIAL, SERIAL), 0);
	assert_int_equal(gf_redact_add(&a, GF_REDACT_SERIAL, SERIAL "\n"), 0);	/* the same value */
	assert_int_equal(gf_redact_add(&b, GF_REDACT_SERIAL, SERIAL), 0);
	assert_int_equal(a.n, 1);
	assert_string_not_equal(a.ids[0].pseudo, SERIAL);
	assert_string_not_equal(a.ids[0].pseudo, b.ids[0].pseudo);
	assert_int_equal(strlen(a.ids[0].pseudo), strlen(SERIAL));
	assert_true(isupper((unsigned char)a.ids[0].pseudo[0]) && isdigit((unsigned char)a.ids[0].pseudo[1]));
	gf_redact_fini(&a);
	gf_redact_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(redacts_everywhere),
		cmocka_unit_test(config_space_serial),
		cmocka_unit_test(keyed_per_recording),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
