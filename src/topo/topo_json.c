/* `gpufeed topo --json`: schema gpufeed-topo/2, documented in
 * docs/json-topo.md.  Unknown values are null, never a number. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/json_read.h"
#include "core/json_stamp.h"
#include "topo/render.h"
#include "topo/topo_internal.h"

static json_t *jcpus(const struct gf_cpuset *s)
{
	char buf[16384];

	gf_cpuset_format_list(s, buf, sizeof(buf));
	return gf_jstr(buf);
}

static json_t *jstr_or_null(const char *s)
{
	return s && *s ? gf_jstr(s) : json_null();
}

static json_t *jint_or_null(long long v, long long unknown)
{
	return v == unknown ? json_null() : json_integer(v);
}

json_t *gf_json_machine(const struct gf_topo *t)
{
	const struct gf_machine *m = &t->machine;
	json_t *o = json_object();

	json_object_set_new(o, "source", gf_jstr(m->source));
	json_object_set_new(o, "hostname", jstr_or_null(m->hostname));
	json_object_set_new(o, "kernel", jstr_or_null(m->kernel));
	json_object_set_new(o, "vendor", jstr_or_null(m->vendor));
	json_object_set_new(o, "product", jstr_or_null(m->product));
	json_object_set_new(o, "hypervisor", json_boolean(m->hypervisor));
	json_object_set_new(o, "memory_bytes", jint_or_null((long long)m->memory_bytes, 0));
	json_object_set_new(o, "cpu_model", jstr_or_null(t->cpus.model));
	json_object_set_new(o, "packages", json_integer(t->cpus.npackages));
	json_object_set_new(o, "cores", json_integer(t->cpus.ncores));
	json_object_set_new(o, "cpus", json_integer(t->cpus.ncpu));
	json_object_set_new(o, "numa_nodes", json_integer(t->numa.nnodes));
	json_object_set_new(o, "gpus", json_integer(t->ngpus));
	json_object_set_new(o, "nvswitch", json_boolean(t->nvswitch));
	json_object_set_new(o, "nvswitches", json_integer(t->nvswitches));
	json_object_set_new(o, "nics", json_integer(t->nnics));
	json_object_set_new(o, "nvidia_driver", jstr_or_null(m->driver_version));
	json_object_set_new(o, "cuda_driver_version", jint_or_null(m->cuda_driver_version, 0));
	json_object_set_new(o, "nvml", json_boolean(m->nvml));
	json_object_set_new(o, "nvml_note", jstr_or_null(m->nvml_note));
	return o;
}

static json_t *json_link(const struct gf_pcie_link *l)
{
	json_t *o;

	if (!l->cur_gts && !l->max_gts && !l->cur_width && !l->max_width)
		return json_null();
	o = json_object();
	json_object_set_new(o, "cur_gts", l->cur_gts ? json_real(l->cur_gts) : json_null());
	json_object_set_new(o, "cur_width", jint_or_null(l->cur_width, 0));
	json_object_set_new(o, "max_gts", l->max_gts ? json_real(l->max_gts) : json_null());
	json_object_set_new(o, "max_width", jint_or_null(l->max_width, 0));
	return o;
}

static json_t *json_cpus(const struct gf_topo *t)
{
	const struct gf_cpus *cp = &t->cpus;
	json_t *o = json_object(), *l3 = json_array(), *list = json_array(), *cg;

	json_object_set_new(o, "online", jcpus(&cp->online));
	json_object_set_new(o, "possible", jcpus(&cp->possible));
	json_object_set_new(o, "allowed", jcpus(&cp->allowed));
	json_object_set_new(o, "affinity", cp->affinity_known ? jcpus(&cp->affinity) : json_null());
	cg = json_object();
	json_object_set_new(cg, "version", jint_or_null(cp->cgroup_version, 0));
	json_object_set_new(cg, "path", jstr_or_null(cp->cgroup_path));
	json_object_set_new(cg, "cpus", cp->cgroup_known ? jcpus(&cp->cgroup) : json_null());
	json_object_set_new(o, "cgroup", cg);
	json_object_set_new(o, "packages", json_integer(cp->npackages));
	json_object_set_new(o, "cores", json_integer(cp->ncores));
	json_object_set_new(o, "threads_per_core", json_integer(cp->threads_per_core));
	json_object_set_new(o, "model", jstr_or_null(cp->model));
	for (int i = 0; i < cp->nl3; i++)
		json_array_append_new(l3, jcpus(&cp->l3[i]));
	json_object_set_new(o, "l3_groups", l3);
	for (int i = 0; i < cp->ncpu; i++) {
		const struct gf_cpu *c = &cp->cpu[i];
		json_t *cj = json_object();

		json_object_set_new(cj, "id", json_integer(c->id));
		json_object_set_new(cj, "package", jint_or_null(c->package, -1));
		json_object_set_new(cj, "core", jint_or_null(c->core, -1));
		json_object_set_new(cj, "smt_rank", json_integer(c->smt_rank));
		json_object_set_new(cj, "node", jint_or_null(c->node, -1));
		json_object_set_new(cj, "l3", jint_or_null(c->l3, -1));
		json_object_set_new(cj, "allowed", json_boolean(c->allowed));
		json_array_append_new(list, cj);
	}
	json_object_set_new(o, "list", list);
	return o;
}

static json_t *json_numa(const struct gf_topo *t)
{
	json_t *o = json_object(), *nodes = json_array();

	for (int i = 0; i < t->numa.nnodes; i++) {
		const struct gf_numa_node *n = &t->numa.node[i];
		json_t *nj = json_object(), *d = json_array();

		json_object_set_new(nj, "id", json_integer(n->id));
		json_object_set_new(nj, "cpus", jcpus(&n->cpus));
		json_object_set_new(nj, "memory_bytes", jint_or_null((long long)n->memory_bytes, 0));
		for (int k = 0; k < t->numa.nnodes; k++)
			json_array_append_new(d, n->distance ? jint_or_null(n->distance[k], -1) : json_null());
		json_object_set_new(nj, "distances", d);
		json_array_append_new(nodes, nj);
	}
	json_object_set_new(o, "kernel_numa", json_boolean(t->numa.kernel_numa));
	json_object_set_new(o, "nodes", nodes);
	json_object_set_new(o, "mems_allowed",
			    t->numa.mems_allowed_known ? jcpus(&t->numa.mems_allowed) : json_null());
	return o;
}

static json_t *json_pci(const struct gf_topo *t)
{
	json_t *o = json_object(), *hbs = json_array(), *devs = json_array();
	char hex[16];

	for (int i = 0; i < t->nhost_bridges; i++) {
		json_t *h = json_object();

		json_object_set_new(h, "name", gf_jstr(t->host_bridges[i].name));
		json_object_set_new(h, "numa_node", jint_or_null(t->host_bridges[i].numa_node, -1));
		json_array_append_new(hbs, h);
	}
	for (int i = 0; i < t->npci; i++) {
		const struct gf_pci_dev *d = &t->pci[i];
		json_t *dj = json_object();

		json_object_set_new(dj, "bdf", gf_jstr(d->bdf));
		json_object_set_new(dj, "path", gf_jstr(d->path));
		json_object_set_new(dj, "parent", d->parent >= 0 ? gf_jstr(t->pci[d->parent].bdf) : json_null());
		json_object_set_new(dj, "host_bridge", gf_jstr(t->host_bridges[d->host_bridge].name));
		json_object_set_new(dj, "depth", json_integer(d->depth));
		json_object_set_new(dj, "kind", gf_jstr(gf_pci_kind_name(d->kind)));
		snprintf(hex, sizeof(hex), "0x%04x", d->vendor);
		json_object_set_new(dj, "vendor", gf_jstr(hex));
		snprintf(hex, sizeof(hex), "0x%04x", d->device);
		json_object_set_new(dj, "device", gf_jstr(hex));
		snprintf(hex, sizeof(hex), "0x%06x", d->class_code);
		json_object_set_new(dj, "class", gf_jstr(hex));
		json_object_set_new(dj, "numa_node", jint_or_null(d->numa_node, -1));
		json_object_set_new(dj, "local_cpus", d->local_cpus_known ? jcpus(&d->local_cpus) : json_null());
		json_object_set_new(dj, "link", json_link(&d->link));
		json_object_set_new(dj, "pcie_type", jint_or_null(d->pcie_type, -1));
		json_object_set_new(dj, "driver", jstr_or_null(d->driver));
		json_array_append_new(devs, dj);
	}
	json_object_set_new(o, "host_bridges", hbs);
	json_object_set_new(o, "devices", devs);
	return o;
}

json_t *gf_json_gpus(const struct gf_topo *t)
{
	json_t *arr = json_array();

	for (int i = 0; i < t->ngpus; i++) {
		const struct gf_gpu *g = &t->gpus[i];
		json_t *o = json_object(), *nv = json_object(), *mig = json_object(), *inst = json_array();

		json_object_set_new(o, "index", json_integer(g->index));
		json_object_set_new(o, "index_source", gf_jstr(gf_source_name(g->index_source)));
		json_object_set_new(o, "pci", gf_jstr(g->bdf));
		json_object_set_new(o, "name", jstr_or_null(g->name));
		json_object_set_new(o, "uuid", jstr_or_null(g->uuid));
		json_object_set_new(o, "memory_bytes", jint_or_null((long long)g->memory_bytes, 0));
		json_object_set_new(o, "cuda_ordinal", json_integer(g->cuda_ordinal));
		json_object_set_new(o, "minor", jint_or_null(g->minor, -1));
		json_object_set_new(o, "minor_source", gf_jstr(gf_source_name(g->minor_source)));
		json_object_set_new(o, "numa_node", jint_or_null(g->numa_node, -1));
		json_object_set_new(o, "numa_source", gf_jstr(gf_source_name(g->numa_source)));
		json_object_set_new(o, "cpus", gf_cpuset_empty(&g->cpus) ? json_null() : jcpus(&g->cpus));
		json_object_set_new(o, "cpus_source", gf_jstr(gf_source_name(g->cpus_source)));
		json_object_set_new(o, "gpu_numa_id", jint_or_null(g->gpu_numa_id, -1));
		json_object_set_new(nv, "active", jint_or_null(g->nvlinks_active, -1));
		json_object_set_new(nv, "version", g->nvlink_version > 0 && g->nvlink_version <= 8 ?
				    gf_jstr(gf_nvlink_version_name(g->nvlink_version)) : json_null());
		json_object_set_new(nv, "nvswitch_links", json_integer(g->nvswitch_links));
		json_object_set_new(o, "nvlink", nv);
		json_object_set_new(mig, "current", g->mig_current < 0 ? json_null() : json_boolean(g->mig_current));
		json_object_set_new(mig, "pending", g->mig_pending < 0 ? json_null() : json_boolean(g->mig_pending));
		for (int k = 0; k < g->nmig; k++) {
			json_t *m = json_object();

			json_object_set_new(m, "uuid", jstr_or_null(g->mig[k].uuid));
			json_object_set_new(m, "gpu_instance", jint_or_null(g->mig[k].gpu_instance, -1));
			json_object_set_new(m, "compute_instance", jint_or_null(g->mig[k].compute_instance, -1));
			json_object_set_new(m, "memory_bytes", jint_or_null((long long)g->mig[k].memory_bytes, 0));
			json_array_append_new(inst, m);
		}
		json_object_set_new(mig, "instances", inst);
		json_object_set_new(o, "mig", mig);
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *json_nics(const struct gf_topo *t)
{
	json_t *arr = json_array();

	for (int i = 0; i < t->nnics; i++) {
		const struct gf_nic *n = &t->nics[i];
		json_t *o = json_object();

		json_object_set_new(o, "label", gf_jstr(n->label));
		json_object_set_new(o, "name", gf_jstr(n->name));
		json_object_set_new(o, "pci", gf_jstr(t->pci[n->pci].bdf));
		json_object_set_new(o, "netdevs", jstr_or_null(n->netdevs));
		json_object_set_new(o, "rdma", jstr_or_null(n->rdma));
		json_object_set_new(o, "link_layer", jstr_or_null(n->link_layer));
		json_object_set_new(o, "speed_mbps", jint_or_null(n->speed_mbps, -1));
		json_object_set_new(o, "state", jstr_or_null(n->state));
		json_object_set_new(o, "virtual_function", json_boolean(n->virtual_function));
		json_object_set_new(o, "pcie_link", json_link(&t->pci[n->pci].link));
		json_object_set_new(o, "numa_node", jint_or_null(n->numa_node, -1));
		json_object_set_new(o, "numa_source", gf_jstr(gf_source_name(n->numa_source)));
		json_object_set_new(o, "cpus", gf_cpuset_empty(&n->cpus) ? json_null() : jcpus(&n->cpus));
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *json_blocks(const struct gf_topo *t)
{
	json_t *arr = json_array();

	for (int i = 0; i < t->nblocks; i++) {
		const struct gf_block *b = &t->blocks[i];
		json_t *o = json_object(), *q = json_object();

		json_object_set_new(o, "name", gf_jstr(b->name));
		json_object_set_new(o, "label", jstr_or_null(b->label));
		json_object_set_new(o, "model", jstr_or_null(b->model));
		json_object_set_new(o, "size_bytes", json_integer((json_int_t)b->size_bytes));
		json_object_set_new(o, "nvme", json_boolean(b->nvme));
		json_object_set_new(o, "rotational", json_boolean(b->rotational));
		json_object_set_new(o, "removable", json_boolean(b->removable));
		json_object_set_new(o, "virtual", json_boolean(b->virtual_dev));
		json_object_set_new(o, "pci", b->pci >= 0 ? gf_jstr(t->pci[b->pci].bdf) : json_null());
		json_object_set_new(o, "pcie_link", b->pci >= 0 ? json_link(&t->pci[b->pci].link) : json_null());
		json_object_set_new(o, "numa_node", jint_or_null(b->numa_node, -1));
		json_object_set_new(q, "scheduler", jstr_or_null(b->scheduler));
		json_object_set_new(q, "read_ahead_kb", jint_or_null(b->read_ahead_kb, -1));
		json_object_set_new(q, "nr_requests", jint_or_null(b->nr_requests, -1));
		json_object_set_new(q, "logical_block_size", jint_or_null(b->logical_block_size, -1));
		json_object_set_new(q, "max_sectors_kb", jint_or_null(b->max_sectors_kb, -1));
		json_object_set_new(o, "queue", q);
		json_array_append_new(arr, o);
	}
	return arr;
}

static const char *dev_kind_name(enum gf_dev_kind k)
{
	return k == GF_DEV_GPU ? "gpu" : k == GF_DEV_NIC ? "nic" : "nvme";
}

/* nvidia-smi's matrix: its devices (GPUs, RDMA NICs) and nothing else. */
json_t *gf_json_matrix(const struct gf_topo *t)
{
	const struct gf_matrix *m = &t->matrix;
	json_t *o = json_object(), *devs = json_array(), *links = json_array(), *legend = json_object();
	json_t *nvml = json_array();
	bool have_nvml = false;
	char buf[64];

	for (int i = 0; i < m->nsmi; i++) {
		json_t *row = json_array(), *nrow = json_array();

		json_array_append_new(devs, gf_jstr(m->dev[i].name));
		json_object_set_new(legend, m->dev[i].name,
				    gf_jstr(gf_matrix_dev_desc(t, i, buf, sizeof(buf))));
		for (int j = 0; j < m->nsmi; j++) {
			enum gf_link_type nv = m->nvml_pcie[i * m->n + j];

			gf_link_format(&m->link[i * m->n + j], buf, sizeof(buf));
			json_array_append_new(row, gf_jstr(buf));
			json_array_append_new(nrow, nv == GF_LINK_UNKNOWN ? json_null() :
						    gf_jstr(gf_link_type_name(nv)));
			have_nvml |= nv != GF_LINK_UNKNOWN;
		}
		json_array_append_new(links, row);
		json_array_append_new(nvml, nrow);
	}
	json_object_set_new(o, "devices", devs);
	json_object_set_new(o, "links", links);
	json_object_set_new(o, "legend", legend);
	if (have_nvml)
		json_object_set_new(o, "nvml_pcie", nvml);
	else
		json_decref(nvml);
	return o;
}

/* The devices nvidia-smi leaves out (NICs without RDMA, NVMe drives), with
 * their connection to each GPU in matrix order. */
json_t *gf_json_other_devices(const struct gf_topo *t)
{
	const struct gf_matrix *m = &t->matrix;
	json_t *arr = json_array();
	char buf[64];

	for (int i = m->nsmi; i < m->n; i++) {
		json_t *o = json_object(), *gl = json_array();

		json_object_set_new(o, "name", gf_jstr(m->dev[i].name));
		json_object_set_new(o, "kind", gf_jstr(dev_kind_name(m->dev[i].kind)));
		json_object_set_new(o, "device", gf_jstr(gf_matrix_dev_desc(t, i, buf, sizeof(buf))));
		for (int j = 0; j < t->ngpus; j++) {
			gf_link_format(&m->link[i * m->n + j], buf, sizeof(buf));
			json_array_append_new(gl, gf_jstr(buf));
		}
		json_object_set_new(o, "gpu_links", gl);
		json_array_append_new(arr, o);
	}
	return arr;
}

static const char *path_kind_name(enum gf_path_kind k)
{
	static const char *names[] = { "host-gpu", "gpu-gpu", "gpu-nic", "gpu-nvme" };

	return names[k];
}

static const char *limit_name(enum gf_limit_kind k)
{
	static const char *names[] = { "unknown", "pcie", "nvlink", "nic", "down" };

	return names[k];
}

json_t *gf_json_paths(const struct gf_topo *t)
{
	json_t *arr = json_array();
	char buf[64];

	for (int i = 0; i < t->npaths; i++) {
		const struct gf_path *p = &t->paths[i];
		json_t *o = json_object();

		json_object_set_new(o, "kind", gf_jstr(path_kind_name(p->kind)));
		if (p->from < 0)
			snprintf(buf, sizeof(buf), "host-node%d", p->host_node);
		json_object_set_new(o, "from", gf_jstr(p->from < 0 ? (p->host_node >= 0 ? buf : "host")
							    : t->matrix.dev[p->from].name));
		json_object_set_new(o, "to", gf_jstr(t->matrix.dev[p->to].name));
		gf_link_format(&p->link, buf, sizeof(buf));
		json_object_set_new(o, "link", gf_jstr(buf));
		json_object_set_new(o, "gb_per_s", p->gb_per_s > 0 ? json_real(p->gb_per_s) : json_null());
		json_object_set_new(o, "limit", gf_jstr(limit_name(p->limit)));
		json_object_set_new(o, "limit_at", p->limit_pci >= 0 ? gf_jstr(t->pci[p->limit_pci].bdf) : json_null());
		json_object_set_new(o, "limit_text", gf_jstr(p->limit_text));
		json_object_set_new(o, "crosses_cpu_link", json_boolean(p->crosses_cpu_link));
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *gf_json_findings(const struct gf_topo *t)
{
	json_t *arr = json_array();

	for (int i = 0; i < t->nfindings; i++) {
		const struct gf_finding *f = &t->findings[i];
		json_t *o = json_object();

		json_object_set_new(o, "severity", gf_jstr(gf_severity_name(f->severity)));
		json_object_set_new(o, "id", gf_jstr(f->id));
		json_object_set_new(o, "subject", gf_jstr(f->subject));
		json_object_set_new(o, "message", gf_jstr(f->message));
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *gf_json_warnings(const struct gf_topo *t)
{
	json_t *arr = json_array();

	for (int i = 0; i < t->nwarnings; i++)
		json_array_append_new(arr, gf_jstr(t->warnings[i]));
	return arr;
}

int gf_json_dump(json_t *root, FILE *f)
{
	int ret = 0;

	if (!root)
		return gf_error(-ENOMEM, "out of memory");
	if (json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)))
		ret = gf_error(-EIO, "writing JSON: %s", strerror(errno));
	else
		fputc('\n', f);
	json_decref(root);
	return ret;
}

GF_API int gf_topo_write_json(const struct gf_topo *t, FILE *f)
{
	json_t *root, *netifs;

	if (!t || !f)
		return GF_NULL_ARG(!t ? "t" : "f");
	root = json_object();
	netifs = json_array();
	if (gf_json_stamp(root, GF_TOPO_SCHEMA)) {
		json_decref(root);
		json_decref(netifs);
		return gf_error(-ENOMEM, "out of memory");
	}
	json_object_set_new(root, "machine", gf_json_machine(t));
	json_object_set_new(root, "cpus", json_cpus(t));
	json_object_set_new(root, "numa", json_numa(t));
	json_object_set_new(root, "pci", json_pci(t));
	json_object_set_new(root, "gpus", gf_json_gpus(t));
	json_object_set_new(root, "nics", json_nics(t));
	for (int i = 0; i < t->nnetifs; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "name", gf_jstr(t->netifs[i].name));
		json_object_set_new(o, "state", jstr_or_null(t->netifs[i].state));
		json_array_append_new(netifs, o);
	}
	json_object_set_new(root, "virtual_interfaces", netifs);
	json_object_set_new(root, "block_devices", json_blocks(t));
	json_object_set_new(root, "matrix", gf_json_matrix(t));
	json_object_set_new(root, "other_devices", gf_json_other_devices(t));
	json_object_set_new(root, "paths", gf_json_paths(t));
	json_object_set_new(root, "findings", gf_json_findings(t));
	json_object_set_new(root, "warnings", gf_json_warnings(t));
	/* Only a library caller's partial model (gf_topo_options.omit) has it. */
	if (t->omitted) {
		json_t *om = json_array();

		if (t->omitted & GF_TOPO_OMIT_CPU_DETAIL)
			json_array_append_new(om, json_string("cpu_detail"));
		if (t->omitted & GF_TOPO_OMIT_STORAGE)
			json_array_append_new(om, json_string("storage"));
		json_object_set_new(root, "omitted", om);
	}
	return gf_json_dump(root, f);
}

/* A document with the standard head, or NULL out of memory. */
static json_t *stamped(const char *schema)
{
	json_t *root = json_object();

	if (root && gf_json_stamp(root, schema)) {
		json_decref(root);
		return NULL;
	}
	return root;
}

GF_API int gf_topo_write_matrix_json(const struct gf_topo *t, FILE *f)
{
	json_t *root;

	if (!t || !f)
		return GF_NULL_ARG(!t ? "t" : "f");
	if (!(root = stamped(GF_TOPO_MATRIX_SCHEMA)))
		return gf_error(-ENOMEM, "out of memory");
	json_object_set_new(root, "matrix", gf_json_matrix(t));
	json_object_set_new(root, "other_devices", gf_json_other_devices(t));
	return gf_json_dump(root, f);
}

GF_API int gf_topo_write_gpu_json(const struct gf_topo *t, int gpu, FILE *f)
{
	const struct gf_matrix *m;
	json_t *root, *gpus, *links, *paths, *mine;
	char buf[16];
	int g, ret;

	if (!t || !f)
		return GF_NULL_ARG(!t ? "t" : "f");
	if ((ret = gf_topo_gpu_args(t, gpu, __func__)))
		return ret;
	g = gf_matrix_gpu(t, gpu);
	if (!(root = stamped(GF_TOPO_GPU_SCHEMA)))
		return gf_error(-ENOMEM, "out of memory");
	m = &t->matrix;
	gpus = gf_json_gpus(t);
	json_object_set(root, "gpu", json_array_get(gpus, (size_t)gpu));
	json_decref(gpus);
	links = json_object();
	for (int j = 0; j < m->n; j++) {
		if (j == g)
			continue;
		gf_link_format(&m->link[g * m->n + j], buf, sizeof(buf));
		json_object_set_new(links, m->dev[j].name, gf_jstr(buf));
	}
	json_object_set_new(root, "links", links);
	paths = gf_json_paths(t);
	mine = json_array();
	for (int i = 0; i < t->npaths; i++)
		if (t->paths[i].to == g || t->paths[i].from == g)
			json_array_append(mine, json_array_get(paths, (size_t)i));
	json_decref(paths);
	json_object_set_new(root, "paths", mine);
	return gf_json_dump(root, f);
}

GF_API int gf_topo_write_nearest_nic_json(const struct gf_topo *t, int gpu, FILE *f)
{
	const struct gf_nic *n;
	json_t *root, *g, *o;
	int nic, dev;
	char buf[16];

	if (!t || !f)
		return GF_NULL_ARG(!t ? "t" : "f");
	if ((nic = gf_topo_gpu_args(t, gpu, __func__)) < 0 || (nic = gf_topo_nearest_nic(t, gpu)) < 0)
		return nic;
	if (!(root = stamped(GF_TOPO_NEAREST_NIC_SCHEMA)))
		return gf_error(-ENOMEM, "out of memory");
	n = &t->nics[nic];
	dev = gf_matrix_gpu(t, gpu);
	g = json_object();
	json_object_set_new(g, "index", json_integer(t->gpus[gpu].index));
	json_object_set_new(g, "pci", gf_jstr(t->gpus[gpu].bdf));
	json_object_set_new(g, "uuid", jstr_or_null(t->gpus[gpu].uuid));
	json_object_set_new(root, "gpu", g);
	o = json_object();
	json_object_set_new(o, "label", gf_jstr(n->label));
	json_object_set_new(o, "rdma", gf_jstr(n->rdma));
	json_object_set_new(o, "pci", gf_jstr(t->pci[n->pci].bdf));
	json_object_set_new(o, "netdevs", jstr_or_null(n->netdevs));
	json_object_set_new(o, "link_layer", jstr_or_null(n->link_layer));
	json_object_set_new(o, "numa_node", jint_or_null(n->numa_node, -1));
	for (int j = 0; j < t->matrix.n; j++) {
		if (t->matrix.dev[j].kind != GF_DEV_NIC || t->matrix.dev[j].ref != nic)
			continue;
		gf_link_format(&t->matrix.link[dev * t->matrix.n + j], buf, sizeof(buf));
		json_object_set_new(o, "link", gf_jstr(buf));
		for (int i = 0; i < t->npaths; i++)
			if (t->paths[i].from == dev && t->paths[i].to == j)
				json_object_set_new(o, "gb_per_s", t->paths[i].gb_per_s > 0 ?
						    json_real(t->paths[i].gb_per_s) : json_null());
	}
	json_object_set_new(root, "nic", o);
	return gf_json_dump(root, f);
}
