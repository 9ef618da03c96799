/* The picture's model (topo/picture.c): which boxes a machine gets, how a
 * chain of bridges folds into a link, what limits a link, where findings
 * are pinned, the NVLink fabric; the SVG the same twice.  And the figures
 * report --html reads from bench documents (report/report_bench.c). */
#include "helpers.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpufeed/gpufeed.h>
#include "report/report_bench.h"
#include "topo/picture.h"

static struct gf_topo *model(const char *machine)
{
	struct gf_topo_options o = GF_TOPO_OPTS_INIT;
	struct gf_topo *t = NULL;

	o.root = t_fixture_root(machine);
	if (gf_topo_discover(&o, &t))
		fail_msg("%s: %s", machine, gf_last_error());
	return t;
}

static const struct gf_pic_box *box_named(const struct gf_picture *p, const char *name)
{
	for (int k = 0; k < p->nbox; k++)
		if (!strcmp(p->box[k].name, name))
			return &p->box[k];
	fail_msg("no box %s", name);
	return NULL;
}

static int count_kind(const struct gf_picture *p, enum gf_pic_kind kind)
{
	int n = 0;

	for (int k = 0; k < p->nbox; k++)
		n += p->box[k].kind == kind;
	return n;
}

static void hgx_boxes(void **state)
{
	struct gf_topo *t = model("hgx-h100-8gpu");
	struct gf_picture p;
	const struct gf_pic_box *nvme, *gpu0, *sw;

	(void)state;
	assert_int_equal(gf_picture_build(t, &p), 0);
	/* Ten host bridges lead somewhere: ten columns, five per node. */
	assert_int_equal(p.ncol, 10);
	assert_int_equal(p.nnode, 2);
	assert_int_equal(p.node[0].ncols, 5);
	assert_int_equal(p.node[1].ncols, 5);
	assert_int_equal(p.node[0].package, 0);
	assert_int_equal(p.node[1].package, 1);
	assert_int_equal(count_kind(&p, GF_PIC_GPU), 8);
	assert_int_equal(count_kind(&p, GF_PIC_NIC), 10);
	assert_int_equal(count_kind(&p, GF_PIC_NVME), 2);
	assert_int_equal(count_kind(&p, GF_PIC_NVSWITCH), 4);
	/* The NVMe drive's root port has one device below it: folded, the
	 * drive hangs from the host bridge with its own link's rate. */
	nvme = box_named(&p, "NVME0");
	assert_int_equal(nvme->depth, 1);
	assert_int_equal(p.box[nvme->parent].kind, GF_PIC_HOST_BRIDGE);
	assert_string_equal(nvme->link, "PCIe Gen5 x4, 15.8 GB/s");
	/* GPU0 and NIC0 fan out of one switch: it has a box; the downstream
	 * ports between do not. */
	gpu0 = box_named(&p, "GPU0");
	sw = &p.box[gpu0->parent];
	assert_int_equal(sw->kind, GF_PIC_FANOUT);
	assert_string_equal(sw->title, "PCIe switch");
	assert_int_equal(gpu0->depth, 2);
	assert_int_equal(gpu0->state, GF_PIC_LINK_OK);
	assert_true(gpu0->gb_per_s > 63 && gpu0->gb_per_s < 63.1);
	assert_string_equal(gpu0->nvlink, "NVLink 4.0 x18, 450 GB/s to NVSwitch");
	assert_true(p.fabric);
	assert_string_equal(p.fabric_title, "NVLink fabric: 4 NVSwitch chips");
	assert_int_equal(p.npair, 0);
	assert_int_equal(p.npin, 0);
	gf_picture_free(&p);
	gf_topo_free(t);
}

static void dual_limits_and_pins(void **state)
{
	struct gf_topo *t = model("dual-8gpu-pcie-switch");
	struct gf_picture p;
	const struct gf_pic_box *gpu5, *nic1, *gpu4;
	int on_gpu5 = 0, on_nic1 = 0;

	(void)state;
	assert_int_equal(gf_picture_build(t, &p), 0);
	gpu5 = box_named(&p, "GPU5");
	nic1 = box_named(&p, "NIC1");
	gpu4 = box_named(&p, "GPU4");
	assert_int_equal(gpu5->state, GF_PIC_LINK_DEGRADED);
	assert_string_equal(gpu5->link, "PCIe Gen4 x8, 15.8 GB/s");
	assert_string_equal(gpu5->note, "below its capability (finding 1)");
	assert_int_equal(nic1->state, GF_PIC_LINK_CAPPED);
	assert_string_equal(nic1->note, "faster than its PCIe (finding 3)");
	assert_int_equal(gpu4->state, GF_PIC_LINK_OK);
	/* Every finding is pinned to the box it names. */
	assert_int_equal(p.npin, t->nfindings);
	for (int i = 0; i < p.npin; i++) {
		assert_true(p.pin[i].box >= 0);
		on_gpu5 += &p.box[p.pin[i].box] == gpu5;
		on_nic1 += &p.box[p.pin[i].box] == nic1;
	}
	assert_int_equal(on_gpu5, 1);
	assert_int_equal(on_nic1, 2);
	/* The onboard NICs' host bridge has no node: its own group, last. */
	assert_int_equal(p.node[p.nnode - 1].id, -1);
	assert_int_equal(p.node[p.nnode - 1].ncols, 1);
	/* PCIe cards without NVLink: no fabric. */
	assert_false(p.fabric);
	gf_picture_free(&p);
	gf_topo_free(t);
}

static char *svg_of(const struct gf_topo *t, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	assert_int_equal(gf_topo_write_svg(t, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void svg_is_deterministic(void **state)
{
	const char *machines[] = { "hgx-h100-8gpu", "dual-8gpu-pcie-switch", "h200x4-vm", "ci-vm" };

	(void)state;
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++) {
		struct gf_topo *a = model(machines[i]), *b = model(machines[i]);
		size_t la, lb;
		char *x = svg_of(a, &la), *y = svg_of(b, &lb);

		assert_int_equal(la, lb);
		assert_memory_equal(x, y, la);
		assert_true(!strncmp(x, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39));
		free(x);
		free(y);
		gf_topo_free(a);
		gf_topo_free(b);
	}
}

/* ---- bench documents ---- */

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = t_mkdtemp();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	t_rmtree(dir);
	free(dir);
	return 0;
}

static int read_doc(const char *name, const char *text, struct gf_report_bench *b)
{
	char path[4096];
	int ret;

	if (text)
		t_write(dir, name, text);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ret = gf_report_bench_read(path, b);
	if (ret)
		gf_report_bench_free(b);
	return ret;
}

static void bench_shapes(void **state)
{
	struct gf_report_bench b;

	(void)state;
	/* Summaries nested in a row (mem), the row's own keys naming it. */
	assert_int_equal(read_doc("mem.json",
				  "{\"schema\": \"gpufeed-bench-mem/1\", \"pairs\": [{\"cpu_node\": 0, \"mem_node\": 1,"
				  " \"placement\": {\"verified\": true},"
				  " \"read\": {\"unit\": \"GB/s\", \"median\": 88.125},"
				  " \"latency\": {\"status\": \"error\", \"error\": \"no memory on node 1\"}}]}",
				  &b),
			 0);
	assert_string_equal(b.target, "mem");
	assert_int_equal(b.nfig, 2);
	assert_string_equal(b.fig[0].label, "cpu_node 0, mem_node 1: read");
	assert_true(b.fig[0].value == 88.125);
	assert_true(b.fig[0].limit == 0);
	assert_true(b.fig[1].failed);
	assert_string_equal(b.fig[1].error, "no memory on node 1");
	gf_report_bench_free(&b);
	/* coll: bus bandwidth, the document's limit. */
	assert_int_equal(read_doc("coll.json",
				  "{\"schema\": \"gpufeed-bench-coll/1\", \"limit\": {\"gb_per_s\": 450, \"link\": \"NV18\"},"
				  " \"results\": [{\"size\": 1048576, \"algbw_gb_per_s\": 40, \"busbw_gb_per_s\": 70.5}]}",
				  &b),
			 0);
	assert_int_equal(b.nfig, 1);
	assert_string_equal(b.fig[0].label, "size 1 MiB: bus bandwidth");
	assert_true(b.fig[0].value == 70.5 && b.fig[0].limit == 450);
	assert_string_equal(b.fig[0].limited_by, "NV18");
	gf_report_bench_free(&b);
	/* A limit in ns is no limit: limits are GB/s. */
	assert_int_equal(read_doc("p2p.json",
				  "{\"schema\": \"gpufeed-bench-p2p/1\", \"points\": [{\"test\": \"latency\", \"gpu\": 0,"
				  " \"unit\": \"ns\", \"median\": 1843.5, \"limit_gb_per_s\": 450}]}",
				  &b),
			 0);
	assert_true(b.fig[0].limit == 0);
	gf_report_bench_free(&b);
}

static void bench_refusals(void **state)
{
	struct gf_report_bench b;
	char path[4096];

	(void)state;
	assert_int_equal(read_doc("check.json", "{\"schema\": \"gpufeed-check/1\"}", &b), -EBADMSG);
	assert_non_null(strstr(gf_last_error(), "check.json: not the --json output of a gpufeed bench command"));
	assert_int_equal(read_doc("cut.json", "{\"schema\": ", &b), -EBADMSG);
	assert_non_null(strstr(gf_last_error(), "cut.json: line 1: not JSON"));
	assert_int_equal(read_doc("dup.json", "{\"schema\": \"gpufeed-bench-io/3\", \"schema\": \"x\"}", &b), -EBADMSG);
	assert_int_equal(read_doc("absent.json", NULL, &b), -ENOENT);
	/* A FIFO is refused, not waited on. */
	snprintf(path, sizeof(path), "%s/fifo.json", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_not_equal(read_doc("fifo.json", NULL, &b), 0);
	assert_non_null(strstr(gf_last_error(), "fifo.json"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hgx_boxes),
		cmocka_unit_test(dual_limits_and_pins),
		cmocka_unit_test(svg_is_deterministic),
		cmocka_unit_test_setup_teardown(bench_shapes, setup, teardown),
		cmocka_unit_test_setup_teardown(bench_refusals, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
